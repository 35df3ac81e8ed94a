import Contracts
import Foundation
import HTTPAPI
import HTTPServer
import JSON
import Rules
import Testing
@testable import Gateway

/// The 400 answers for bad bodies are worked out from the `DecodingError` (its kind, coding path
/// and expected type); the message coder must throw the same ones Foundation's `JSONDecoder`
/// threw when the gateway used it, so that clients see the same messages.
@Suite("Request body decoding")
struct RequestBodyTests {
    private static let bodies = [
        #"{"deviceId":"d"}"#, #"{"identityToken":"t"}"#, #"{"identityToken":5,"deviceId":"d"}"#,
        #"{"identityToken":"t","deviceId":null}"#, #"{"identityToken":"t","deviceId":"d","rawNonce":[1]}"#,
        #"{"identityToken":"t","deviceId":"d","fullName":"x"}"#, #"{"identityToken":"t","deviceId":"d","fullName":{"givenName":1}}"#,
        #"{"identityToken":"t","deviceId":"d","fullName":[]}"#, #"{"identityToken":"t","deviceId":"d","email":true}"#,
        #"[1,2]"#, #""text""#, "null", "5", #"{"identityToken":"#, "{} x",
        #"{"identityToken":"\ud800","deviceId":"d"}"#, #"{"identityToken":"t","identityToken":1,"deviceId":"d"}"#,
    ]

    private func request(_ body: String) -> HTTPRequest {
        HTTPRequest(method: "POST", path: "/api/auth/apple-login", headers: ["content-type": "application/json"], body: Array(body.utf8))
    }

    /// What a `DecodingError` says, in the terms the gateway's message is made of.
    private func shape(_ error: any Error) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?: return "keyNotFound \(path(context)).\(key.stringValue)"
        case .valueNotFound(_, let context)?: return "valueNotFound \(path(context))"
        case .typeMismatch(let type, let context)?: return "typeMismatch \(path(context)) \(type)"
        case .dataCorrupted(let context)?: return "dataCorrupted \(path(context))"
        default: return "other \(error)"
        }
    }

    @Test("each bad body fails as it did with Foundation's decoder: same kind, path and type", arguments: bodies)
    func sameFailuresAsFoundation(_ body: String) {
        var theirs = "decoded"
        var ours = "decoded"
        do { _ = try JSONDecoder().decode(AppleLoginBody.self, from: Data(body.utf8)) } catch { theirs = shape(error) }
        do { _ = try MessageCoding.decode(AppleLoginBody.self, from: Array(body.utf8)) } catch { ours = shape(error) }
        #expect(ours == theirs)
    }

    @Test("the messages name what to fix")
    func messages() {
        let expected = [
            #"{"deviceId":"d"}"#: "identityToken is required.",
            #"{"identityToken":"t","deviceId":null}"#: "deviceId must not be null.",
            #"{"identityToken":5,"deviceId":"d"}"#: "identityToken must be a string.",
            #"{"identityToken":"t","deviceId":"d","fullName":{"givenName":1}}"#: "fullName.givenName must be a string.",
            #"{"identityToken":"t","deviceId":"d","fullName":[]}"#: "fullName must be an object.",
            #"[1,2]"#: "The request body must be a JSON object.",
            #"{"identityToken":"#: "The request body is not valid JSON.",
            // Foundation's decoder let a trailing comma pass (and then named the missing field); the
            // message coder holds to RFC 8259, as it always did for NATS messages.
            #"{"identityToken":"t","deviceId":"d",}"#: "The request body is not valid JSON.",
        ]
        for (body, message) in expected {
            do {
                _ = try RequestBody.decode(AppleLoginBody.self, from: request(body))
                Issue.record("decoded \(body)")
            } catch {
                #expect(error.code == .invalidRequest && error.message == message, "\(body): \(error.message)")
            }
        }
    }
}

@Suite("Field checks")
struct FieldCheckTests {
    @Test("the control-character check is Unicode's category Cc, for every scalar")
    func controlIsCategoryCc() {
        var disagreements: [UInt32] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }  // surrogates are no scalars
            if scalar.isControlCharacter != (scalar.properties.generalCategory == .control) { disagreements.append(value) }
        }
        #expect(disagreements.isEmpty)
    }

    @Test("a field with a control character anywhere is refused, naming the field")
    func controlRefused() {
        for value in ["a\u{0}b", "token\n", "\u{7F}x", "x\u{85}", "x\u{9F}"] {
            #expect(throws: ServiceFailure.invalidRequest("deviceId must not contain control characters.")) {
                try Field.required(value, "deviceId", maxBytes: 100)
            }
        }
        #expect(throws: Never.self) { try Field.required("é\u{A0}x\u{2028}", "deviceId", maxBytes: 100) }
    }
}
