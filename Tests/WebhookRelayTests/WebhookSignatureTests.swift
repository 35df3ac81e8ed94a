import Foundation
import JSON
import Testing
import TestVectors
import Webhooks

/// The Standard Webhooks signature against the spec's own known answers (Tests/Vectors/standard-webhooks).
@Suite("Standard Webhooks signatures")
struct WebhookSignatureTests {
    struct Vectors: Decodable {
        struct Sign: Decodable {
            var secret: String
            var id: String
            var timestamp: Int64
            var payload: String
            var signature: String
        }

        struct Verify: Decodable {
            var name: String
            var signatures: String
            var valid: Bool
        }

        var sign: [Sign]
        var verify: [Verify]
    }

    static let vectors = Result {
        try VectorFiles.load(Vectors.self, "standard-webhooks/signing-vectors.json")
    }

    @Test("signs the spec's known answer")
    func knownAnswer() throws {
        let vectors = try Self.vectors.get()
        #expect(!vectors.sign.isEmpty)
        for vector in vectors.sign {
            let secret = try WebhookSecret(vector.secret)
            #expect(WebhookSignature.sign(id: vector.id, timestamp: vector.timestamp, body: Array(vector.payload.utf8), secret: secret)
                    == vector.signature)
        }
    }

    @Test("verifies as the spec's tests do: a wrong signature fails, a list holding the right one passes")
    func verifies() throws {
        let vectors = try Self.vectors.get()
        let sign = try #require(vectors.sign.first)
        let secret = try WebhookSecret(sign.secret)
        let then = Date(timeIntervalSince1970: Double(sign.timestamp))
        for vector in vectors.verify {
            #expect(WebhookSignature.verify(id: sign.id, timestamp: String(sign.timestamp), signatures: vector.signatures,
                                            body: Array(sign.payload.utf8), secret: secret, now: then) == vector.valid, "\(vector.name)")
        }
        let good = sign.signature
        #expect(WebhookSignature.verify(id: sign.id, timestamp: String(sign.timestamp), signatures: good, body: Array(sign.payload.utf8),
                                        secret: secret, now: then.addingTimeInterval(301)) == false, "a timestamp older than 5 minutes")
        #expect(WebhookSignature.verify(id: sign.id + "x", timestamp: String(sign.timestamp), signatures: good,
                                        body: Array(sign.payload.utf8), secret: secret, now: then) == false, "another ID")
        #expect(WebhookSignature.verify(id: sign.id, timestamp: String(sign.timestamp), signatures: good,
                                        body: Array((sign.payload + " ").utf8), secret: secret, now: then) == false, "another body")
    }

    @Test("a secret is whsec_ and 24 to 64 bytes of base64; what is wrong is told without the secret")
    func secrets() throws {
        #expect(throws: WebhookSecretError.missingPrefix) { try WebhookSecret("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") }
        #expect(throws: WebhookSecretError.notBase64) { try WebhookSecret("whsec_not base64!") }
        #expect(throws: WebhookSecretError.wrongLength(16)) { try WebhookSecret("whsec_" + Data(count: 16).base64EncodedString()) }
        #expect(throws: WebhookSecretError.wrongLength(65)) { try WebhookSecret("whsec_" + Data(count: 65).base64EncodedString()) }
        let secret = try WebhookSecret("whsec_" + Data(repeating: 7, count: 64).base64EncodedString())
        #expect(secret.key.count == 64)
        #expect(!String(describing: secret).contains(Data(repeating: 7, count: 64).base64EncodedString()))
        #expect(try WebhookSecret(secret.text) == secret)
    }
}
