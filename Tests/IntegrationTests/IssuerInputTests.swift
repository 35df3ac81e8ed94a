import Contracts
import Testing
import TestSupport

/// The issuer checks what it is sent against the same limits as the gateway (`FieldLimits`), trusting no
/// caller: a request that never passed the gateway gets the same refusal.
@Suite("Issuer input, sent past the gateway")
struct IssuerInputTests {
    @Test("a device ID one byte over FieldLimits.deviceId is refused naming the limit; one of exactly the limit starts a session")
    func deviceIdLimit() async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()
        let tooLong = String(repeating: "d", count: FieldLimits.deviceId + 1)
        let refused = try await stack.callResult(Endpoints.issueTokens,
                                                 IssueTokensRequest(memberId: login.memberId, deviceId: tooLong, provider: .google))
        guard case .failure(let failure) = refused else {
            Issue.record("the issuer started a session for a \(tooLong.utf8.count)-byte device ID")
            return
        }
        #expect(failure.code == .invalidRequest, "\(failure)")
        #expect(failure.message.contains("\(FieldLimits.deviceId)"), "\(failure)")
        let longest = String(repeating: "d", count: FieldLimits.deviceId)
        let issued = try await stack.call(Endpoints.issueTokens,
                                          IssueTokensRequest(memberId: login.memberId, deviceId: longest, provider: .google))
        #expect(issued.memberId == login.memberId)
    }
}

/// A device ID the gateway refuses (blank, control characters) is refused by each service it reaches when
/// sent past the gateway, and the login starts nothing.
@Suite("Device IDs, sent past the gateway")
struct DeviceIdInputTests {
    @Test("the verifier's login and the issuer refuse a blank device ID or one with control characters", arguments: ["   ", "dev\nice", "\u{1b}[2J"])
    func refused(deviceId: String) async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()
        let issued = try await stack.callResult(Endpoints.issueTokens,
                                                IssueTokensRequest(memberId: login.memberId, deviceId: deviceId, provider: .google))
        guard case .failure(let issuerFailure) = issued else {
            Issue.record("the issuer started a session for device ID \(String(reflecting: deviceId))")
            return
        }
        #expect(issuerFailure.code == .invalidRequest, "\(issuerFailure)")
        let subject = RunningStack.uniqueSubject()
        let token = try await stack.idToken("google", sub: subject)
        let verified = try await stack.callResult(Endpoints.login,
                                                  LoginRequest(verify: VerifyRequest(provider: .google, token: token), deviceId: deviceId))
        guard case .failure(let loginFailure) = verified else {
            Issue.record("a login with device ID \(String(reflecting: deviceId)) went through")
            return
        }
        #expect(loginFailure.code == .invalidRequest, "\(loginFailure)")
        // Refused before anything was made: the same token then logs in as a new member.
        let again = try await stack.call(Endpoints.login, LoginRequest(verify: VerifyRequest(provider: .google, token: token), deviceId: "device"))
        #expect(again.isExistingMember == false)
    }
}
