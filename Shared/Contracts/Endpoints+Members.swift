extension Endpoints {
    /// member-service: link a verified identity to a member (idempotent for the same member). Sent by the
    /// token-verifier only, once it proved the provider token (``Endpoints/link``).
    public static let memberLinkIdentity = Endpoint<LinkIdentityRequest, MemberProfile>("auth.member.link-identity")
    /// member-service: unlink one provider's identity from a member (never the last one), then end the
    /// sessions opened through it (at the token-issuer); answers with those.
    public static let memberUnlinkIdentity = Endpoint<UnlinkIdentityRequest, SessionsEnded>("auth.member.unlink-identity")
    /// member-service: delete a member, its personal data and identities (idempotent).
    public static let memberDelete = Endpoint<MemberDeleteRequest, MemberDeleteReply>("auth.member.delete")
    /// member-service: act on an Apple server-to-server notification the token-verifier proved (idempotent).
    public static let memberAppleNotification = Endpoint<AppleNotification, AppleNotificationOutcome>("auth.member.apple-notification")
}
