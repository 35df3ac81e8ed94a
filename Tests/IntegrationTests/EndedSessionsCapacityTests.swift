import Contracts
import Foundation
import Testing
import TestSupport

/// `ENDED_SESSIONS_CAPACITY`: a gateway whose ended-session list is full forgets the sessions whose tokens
/// expire first, and fails closed. A token issued before the end of a session it forgot is refused (the app
/// refreshes), so a flood of logins and logouts never makes a logged-out or stolen token work again.
///
/// On a stack of its own: the shared stack's other suites end sessions all the time, and every end
/// reaches this gateway's list.
@Suite("A full ended-session list fails closed")
struct EndedSessionsCapacityTests {
    private static let stack = TestStack.isolated()

    @Test("with ENDED_SESSIONS_CAPACITY=50, 70 logged-out sessions leave the first one's access token refused; a live session refreshes and goes on")
    func failsClosed() async throws {
        let stack = try await Self.stack.running()
        let gateway = try await StandaloneGateway.start(natsURL: stack.natsURL) {
            $0.rateLimitRPS = 0
            $0.endedSessionCapacity = 50
        }
        try await withResource(gateway, close: { await $0.stop() }) { gateway in
            try await gateway.waitUntilConnected()
            let live = try await login(stack, gateway, sub: RunningStack.uniqueSubject("capacity"))
            // One member on 70 devices, then logged out of all of them at once.
            let sub = RunningStack.uniqueSubject("capacity")
            var ended: [LoginResponse] = []
            for device in 0..<70 {
                ended.append(try await login(stack, gateway, sub: sub, device: "device-\(device)"))
            }
            #expect(try await me(ended[0].accessToken, at: gateway).status == 200)
            let logout = try await send("POST", "/api/auth/logout-all", token: ended[69].accessToken, at: gateway)
            #expect(logout.status == 204, "body: \(logout.text)")

            let first = try await me(ended[0].accessToken, at: gateway)
            #expect(first.status == 401, "the first logged-out session's token works again: \(first.text)")
            #expect(first.failure?.code == .unauthorized)
            #expect(try await me(ended[69].accessToken, at: gateway).status == 401)
            #expect(try await dropped(gateway) >= 20)

            // The live session's token is older than the ends the list forgot: refused, so the app refreshes,
            // and the refreshed token (issued after them) works.
            #expect(try await me(live.accessToken, at: gateway).status == 401)
            // A token issued in the very second of the latest forgotten end is refused too: the app refreshes again.
            var refreshToken = live.refreshToken
            var refreshedWorks = false
            let deadline = ContinuousClock.now + .seconds(10)
            while !refreshedWorks, ContinuousClock.now < deadline {
                let refreshed = try await send("POST", "/api/auth/refresh", json: RefreshBody(refreshToken: refreshToken), at: gateway)
                let pair = try refreshed.data(LoginResponse.self)
                refreshToken = pair.refreshToken
                refreshedWorks = try await me(pair.accessToken, at: gateway).status == 200
            }
            #expect(refreshedWorks)
        }
    }

    private func login(_ stack: RunningStack, _ gateway: StandaloneGateway, sub: String, device: String = "d") async throws -> LoginResponse {
        let idToken = try await stack.googleToken(sub: sub)
        return try await send("POST", "/api/auth/google-login", json: GoogleLoginBody(idToken: idToken, deviceId: device), at: gateway)
            .data(LoginResponse.self)
    }

    private func me(_ token: String, at gateway: StandaloneGateway) async throws -> APIResponse {
        try await send("GET", "/api/members/me", token: token, at: gateway)
    }

    private func send(_ method: String, _ path: String, token: String? = nil, json: (any Encodable)? = nil,
                      at gateway: StandaloneGateway) async throws -> APIResponse {
        var headers: [(String, String)] = token.map { [("Authorization", "Bearer \($0)")] } ?? []
        var body: [UInt8]?
        if let json {
            headers.append(("Content-Type", "application/json"))
            body = Array(try JSONEncoder().encode(json))
        }
        return try await RunningStack.send(method, gateway.url + path, headers: headers, body: body)
    }

    /// The gateway's `access_token_ended_sessions_dropped_total` (0 while it has dropped none).
    private func dropped(_ gateway: StandaloneGateway) async throws -> Int {
        let metrics = try await RunningStack.send("GET", gateway.managementURL + "/metrics").text
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("access_token_ended_sessions_dropped_total ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) } ?? 0
    }
}
