/// What Sign in with Apple says of a user's Apple ID credential for this app
/// (`ASAuthorizationAppleIDProvider.CredentialState`).
public enum AppleCredentialState: Sendable, Equatable {
    /// The user is still signed in with Apple ID.
    case authorized
    /// The user stopped using Apple ID with this app (Settings), or Apple revoked it.
    case revoked
    /// No credential for this user on this device (signed out of the Apple ID, or never signed in).
    case notFound
    /// The app was transferred to another team: the user's identifier changes; sign in again to migrate.
    case transferred
}

/// Asks Sign in with Apple for a user's credential state. `SystemAppleCredentialStates` asks
/// `AuthenticationServices`; tests and other platforms give their own.
public protocol AppleCredentialStates: Sendable {
    /// The state of the credential of `userID` (the `user` of the `ASAuthorizationAppleIDCredential`).
    func credentialState(forUserID userID: String) async throws -> AppleCredentialState
}

extension AuthClient {
    /// Checks the Apple credential of `userID` (keep the credential's `user` at sign-in): call it at launch
    /// and when the app comes to the foreground, as Apple asks. A revoked or missing credential ends this
    /// device's session on the server and signs out with `.appleCredentialRevoked`; any other state
    /// changes nothing. Returns the state. A failed check (no network, say) throws and changes nothing.
    @discardableResult
    public func checkAppleCredential(userID: String, using states: any AppleCredentialStates) async throws -> AppleCredentialState {
        let state = try await states.credentialState(forUserID: userID)
        switch state {
        case .revoked, .notFound:
            await appleCredentialRevoked()
        case .authorized, .transferred:
            break
        }
        return state
    }

    /// Signs out with `.appleCredentialRevoked`, ending this device's session on the server when it can:
    /// call it from `ASAuthorizationAppleIDProvider.credentialRevokedNotification`
    /// (`observeAppleCredentialRevocation()` does so). Does nothing when nobody is signed in.
    public func appleCredentialRevoked() async {
        guard (try? await currentMemberId()) != nil else { return }
        // The local sign-out happens whatever the server says (see `logout()`).
        try? await endSessions("/api/auth/logout", reason: .appleCredentialRevoked)
    }
}
