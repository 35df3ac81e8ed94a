import Contracts

extension ServiceFailure {
    /// The issuer's refusal of a suspended member: a login that raced the suspension, a refresh of a session
    /// the suspension ended (403 `MEMBER_SUSPENDED` at the gateway).
    static let memberSuspended = ServiceFailure(.memberSuspended, "The account is suspended.")
}
