import Foundation
import JOSE
import Testing
import TestVectors

private struct JWSFile: Decodable {
    struct Group: Decodable {
        let comment: String?
        let `public`: JWK?
        let tests: [Case]
    }

    struct KeySetGroup: Decodable {
        let comment: String?
        let `public`: JWKSet?
        let `private`: JWKSet?
        let tests: [Case]
    }

    struct Case: Decodable {
        let tcId: Int
        let comment: String
        let jws: String
        let result: String
    }
}

private struct WycheproofJOSE<Group: Decodable>: Decodable {
    let numberOfTests: Int
    let testGroups: [Group]
}

/// Runs one Wycheproof JWS case through CompactJWS and returns whether it was accepted.
private func accepts(_ token: String, keys: VerificationKeySet) -> Bool {
    do {
        let jws = try CompactJWS.parse(token)
        try jws.verify(with: keys, allowed: Set(JWSAlgorithm.allCases))
        return true
    } catch {
        return false
    }
}

/// The `alg` a token's header names, if the header decodes at all.
private func headerAlgorithm(_ token: String) -> String? {
    (try? CompactJWS.parse(token, maxLength: .max))?.header.alg
}

@Suite("Wycheproof JSON Web Signature cases through CompactJWS and VerificationKeySet")
struct WycheproofJWSTests {
    @Test func everyCase() throws {
        let file = try VectorFiles.load(WycheproofJOSE<JWSFile.Group>.self, "wycheproof/json_web_signature_test.json")
        var ran = 0, acceptedValid = 0
        for group in file.testGroups {
            let keys = VerificationKeySet(JWKSet(keys: group.public.map { [$0] } ?? []))
            for test in group.tests {
                ran += 1
                let accepted = accepts(test.jws, keys: keys)
                let alg = headerAlgorithm(test.jws)
                let ours = alg.flatMap(JWSAlgorithm.init(rawValue:)) != nil
                if test.result == "valid" && ours {
                    #expect(accepted, "tcId \(test.tcId) \(test.comment) (\(alg ?? "?")) should verify")
                    if accepted { acceptedValid += 1 }
                } else if test.result != "acceptable" {
                    #expect(!accepted, "tcId \(test.tcId) \(test.comment) (\(alg ?? "?"), \(test.result)) must be rejected")
                }
                if !ours {
                    #expect(!accepted, "tcId \(test.tcId): alg \(alg ?? "?") is not ours and must be rejected")
                }
            }
        }
        #expect(ran == 401)
        #expect(ran == file.numberOfTests)
        // es256 acceptsValid, rs256 acceptsValid, five RS256_2048 payloads, two RFC 7520 figure 13, SpecialCaseEs256 valid.
        #expect(acceptedValid == 10)
    }
}

@Suite("Wycheproof JSON Web Key cases: key-set hygiene")
struct WycheproofJWKTests {
    @Test func everyCase() throws {
        let file = try VectorFiles.load(WycheproofJOSE<JWSFile.KeySetGroup>.self, "wycheproof/json_web_key_test.json")
        var ran = 0, acceptedValid = 0
        for group in file.testGroups {
            let keys = VerificationKeySet(group.public ?? group.private ?? JWKSet(keys: []))
            for test in group.tests {
                ran += 1
                let accepted = accepts(test.jws, keys: keys)
                let ours = headerAlgorithm(test.jws).flatMap(JWSAlgorithm.init(rawValue:)) != nil
                if test.result == "valid" && ours {
                    #expect(accepted, "tcId \(test.tcId) \(test.comment) should verify")
                    if accepted { acceptedValid += 1 }
                } else {
                    #expect(!accepted, "tcId \(test.tcId) \(test.comment) must be rejected")
                }
            }
        }
        #expect(ran == 26)
        #expect(ran == file.numberOfTests)
        #expect(acceptedValid == 1)
    }

    @Test("The ROCA-weak, 1024-bit and e = 1 RSA keys are refused when the set is built")
    func weakRSAKeysRefused() throws {
        let file = try VectorFiles.load(WycheproofJOSE<JWSFile.KeySetGroup>.self, "wycheproof/json_web_key_test.json")
        for name in ["jws_rsa_roca_key", "keysize_too_small", "exponentOne"] {
            let group = try #require(file.testGroups.first { $0.comment == name })
            let set = try #require(group.public)
            #expect(set.keys.count == 1)
            let keys = VerificationKeySet(set)
            #expect(keys.isEmpty, "\(name) should leave no usable key")
            #expect(keys.skipped.map(\.error) == [.unsupportedKey])
        }
    }
}
