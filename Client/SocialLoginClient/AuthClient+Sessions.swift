import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension AuthClient {
    /// Ends this device's session on the server and signs out here. The local sign-out happens
    /// whatever the server says; an error is thrown only when the server could not be told (the
    /// session then lapses when its refresh token expires, since this device forgot it).
    public func logout() async throws {
        try await endSessions("/api/auth/logout")
    }

    /// Ends every session of the member, on every device, and signs out here (as `logout()`).
    public func logoutAll() async throws {
        try await endSessions("/api/auth/logout-all")
    }

    /// The member's sessions, one per device; `current` marks this one.
    public func sessions() async throws -> [DeviceSession] {
        try await authorized("GET", "/api/auth/sessions", as: [DeviceSession].self)
    }

    /// Ends one of the member's sessions (sign out a lost phone).
    public func endSession(_ sessionId: String) async throws {
        try await authorized("DELETE", "/api/auth/sessions/\(sessionId)")
    }

    func endSessions(_ path: String, reason: SignOutReason = .loggedOut) async throws {
        var failure: (any Error)?
        do {
            try await authorized("POST", path)
        } catch let error as ClientError where error == .notSignedIn {
            // Nobody was signed in: nothing to end.
        } catch let error as APIError where error.status == 401 {
            // The server had already ended the session.
        } catch {
            failure = error
        }
        try await session.signOut(reason)
        if let failure { throw failure }
    }
}
