#if canImport(AuthenticationServices)
import AuthenticationServices
import Foundation

/// Sign in with Apple's credential states, from `AuthenticationServices`.
public struct SystemAppleCredentialStates: AppleCredentialStates {
    /// Asks the system.
    public init() {}

    public func credentialState(forUserID userID: String) async throws -> AppleCredentialState {
        switch try await ASAuthorizationAppleIDProvider().credentialState(forUserID: userID) {
        case .authorized: .authorized
        case .revoked: .revoked
        case .notFound: .notFound
        case .transferred: .transferred
        // A state this version does not know signs nobody out.
        @unknown default: .authorized
        }
    }
}

extension AuthClient {
    /// Signs out (`appleCredentialRevoked()`) whenever Apple posts `credentialRevokedNotification`, until
    /// the returned task is cancelled. Start it at launch when the user signed in with Apple.
    public func observeAppleCredentialRevocation() -> Task<Void, Never> {
        Task { [weak self] in
            for await _ in NotificationCenter.default.notifications(named: ASAuthorizationAppleIDProvider.credentialRevokedNotification) {
                await self?.appleCredentialRevoked()
            }
        }
    }
}
#endif
