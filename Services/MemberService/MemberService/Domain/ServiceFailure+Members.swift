import Contracts

extension ServiceFailure {
    /// The member behind the caller's access token was deleted.
    static let memberGone = ServiceFailure(.unauthorized, "The member no longer exists; sign in again.")
    /// The identity belongs to another member.
    static let identityInUse = ServiceFailure(.identityInUse, "This identity is linked to another member; email never merges accounts.")
    /// No member of that ID: never was, or deleted (an admin's call).
    static let noSuchMember = ServiceFailure(.notFound, "No such member.")
    /// The member's only identity cannot go.
    static let lastIdentity = ServiceFailure(.lastIdentity, "This is the member's only identity; link another one first, or delete the account.")

    /// The member already has another identity of `provider`.
    static func providerLinked(_ provider: Provider) -> ServiceFailure {
        ServiceFailure(.identityInUse, "Another \(provider.rawValue.lowercased()) identity is linked to this member; unlink it first.")
    }

    /// The member has no identity of `provider`.
    static func notLinked(_ provider: Provider) -> ServiceFailure {
        ServiceFailure(.notFound, "No \(provider.rawValue.lowercased()) identity is linked to this member.")
    }
}
