import Contracts

/// What a verified Apple notification does to the Apple identity it names.
enum AppleNotificationAction: Sendable, Equatable {
    /// `consent-revoked`, `account-delete`: the identity ends, and the member with it when it was the last one.
    case endIdentity
    /// `email-disabled`, `email-enabled`: the identity's relay email is turned off or on (a new address unverified).
    case setEmailDisabled(Bool)
    /// A type Apple may add later: recorded, nothing changes.
    case none

    /// The action of `type`.
    init(type: String) {
        switch type {
        case "consent-revoked", "account-delete": self = .endIdentity
        case "email-disabled": self = .setEmailDisabled(true)
        case "email-enabled": self = .setEmailDisabled(false)
        default: self = .none
        }
    }
}
