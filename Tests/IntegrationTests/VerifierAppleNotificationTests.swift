import Contracts
import DevIDP
import Foundation
import JOSE
import Testing
import TestSupport

/// Apple's server-to-server notifications at the verifier (`auth.verifier.apple-notification`): what it
/// proved, as it hands the event on to the member-service.
@Suite("Verifier Apple notifications")
struct VerifierAppleNotificationTests {
    private func verify(_ stack: RunningStack, _ payload: String, sub: String = "") async throws -> Result<AppleNotification, ServiceFailure> {
        let (answer, handedOn) = try await stack.handedOn(Endpoints.verifyAppleNotification, AppleNotificationRequest(payload: payload),
                                                          to: Endpoints.memberAppleNotification) { $0.subject == sub }
        switch answer {
        case .failure(let failure): return .failure(failure)
        case .success:
            guard let handedOn else { throw ServiceFailure(.internal, "the verifier answered but handed nothing on") }
            return .success(handedOn)
        }
    }

    @Test("a genuine notification gives its event; is_private_email as string or boolean; event_time in seconds or milliseconds")
    func genuine() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("apple")
        let first = try await stack.idp.mintAppleNotification(AppleNotificationMint(
            type: "email-disabled", sub: sub, email: "relay@privaterelay.appleid.com", is_private_email: .string("true"),
            event_time: 1_700_000_000_123))
        let event = try await verify(stack, first, sub: sub).get()
        #expect(event.type == "email-disabled" && event.subject == sub)
        #expect(!event.jti.isEmpty && abs(event.issuedAt.timeIntervalSinceNow) < 120)
        #expect(event.email == "relay@privaterelay.appleid.com" && event.isPrivateEmail == true)
        // Milliseconds are read; the contract's ISO 8601 dates carry whole seconds.
        #expect(abs((event.eventTime ?? .distantPast).timeIntervalSince1970 - 1_700_000_000) < 1)
        let second = try await stack.idp.mintAppleNotification(AppleNotificationMint(
            type: "consent-revoked", sub: sub, is_private_email: .bool(false), event_time: 1_700_000_000, aud: TestStack.ClientID.appleServices))
        let other = try await verify(stack, second, sub: sub).get()
        #expect(other.type == "consent-revoked" && other.isPrivateEmail == false)
        #expect(other.eventTime == Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test("a forged, foreign or broken notification is INVALID_PROVIDER_TOKEN", arguments: [
        "aud", "iss", "events-missing", "events-object", "events-garbage", "future", "expired", "tampered", "garbage",
        "no-jti", "empty-jti", "number-jti", "too-old",
    ])
    func refused(_ kind: String) async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("apple")
        let now = Int64(Date().timeIntervalSince1970)
        var mint = AppleNotificationMint(type: "account-delete", sub: sub)
        switch kind {
        case "aud": mint.aud = "com.other.app"
        case "iss": mint.claims = ["iss": .string("https://appleid.apple.com.evil")]
        case "events-missing": mint.claims = ["events": .null]
        case "events-object": mint.claims = ["events": .object(["type": .string("account-delete"), "sub": .string(sub)])]
        case "events-garbage": mint.claims = ["events": .string("{not json")]
        case "future": mint.claims = ["iat": .integer(now + 600)]
        case "expired": mint.claims = ["exp": .integer(now - 600)]
        case "no-jti": mint.claims = ["jti": .null]
        case "empty-jti": mint.claims = ["jti": .string("")]
        case "number-jti": mint.claims = ["jti": .integer(7)]
        case "too-old": mint.claims = ["iat": .integer(now - AppleNotification.maxAge.components.seconds - 600)]
        default: break
        }
        var payload = try await stack.idp.mintAppleNotification(mint)
        if kind == "tampered" {
            var parts = payload.split(separator: ".").map(String.init)
            parts[1] = Base64URL.encode(Array(#"{"iss":"\#(stack.idp.issuer("apple"))","aud":"\#(TestStack.ClientID.apple)","iat":\#(now),"events":"{\"type\":\"account-delete\",\"sub\":\"victim\"}"}"#.utf8))
            payload = parts.joined(separator: ".")
        } else if kind == "garbage" {
            payload = "not.a.jws"
        }
        let result = try await verify(stack, payload)
        guard case .failure(let failure) = result else {
            Issue.record("\(kind): accepted")
            return
        }
        #expect(failure.code == .invalidProviderToken, "\(kind): \(failure)")
    }
}
