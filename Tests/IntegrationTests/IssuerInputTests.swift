import Contracts
import Testing
import TestSupport

/// The issuer checks what it is sent against the same limits as the gateway (`FieldLimits`), trusting no
/// caller: a request that never passed the gateway gets the same refusal.
@Suite("Issuer input, sent past the gateway")
struct IssuerInputTests {
    @Test("a device ID one byte over FieldLimits.deviceId is refused naming the limit; one of exactly the limit starts a session")
    func deviceIdLimit() async throws {
        let stack = try await TestStack.shared.running()
        let login = try await stack.googleLogin(sub: RunningStack.uniqueSubject()).data(LoginResponse.self)
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
