import Contracts

extension AdminActor {
    /// The rule for the admin an admin call names, checked by every service that acts on it (SPEC section 9:
    /// no caller is trusted): a name of 1 to ``FieldLimits/adminName`` bytes and, for a change
    /// (`requiringReason`), a reason of 1 to ``FieldLimits/adminReason`` bytes; neither blank nor holding
    /// control characters. A read may carry a reason; when it does, the same rule holds.
    public func check(requiringReason: Bool) throws(ServiceFailure) {
        try Field.required(admin, "actor.admin", maxBytes: FieldLimits.adminName)
        if requiringReason, reason == nil {
            throw ServiceFailure.invalidRequest("actor.reason is required for a change: say why.")
        }
        try Field.optional(reason, "actor.reason", maxBytes: FieldLimits.adminReason)
    }
}
