import Contracts
import Postgres

extension MemberStore {
    /// Acts on a verified Apple notification: `consent-revoked` and `account-delete` end the Apple
    /// identity (and the member with it when it was the last one); `email-disabled` and
    /// `email-enabled` update the identity's email flags. Idempotent: a repeated event, or one
    /// about an unknown Apple user, finds nothing left to do. Always writes `apple.notification`.
    func handle(_ notification: AppleNotification) async throws -> AppleNotificationOutcome {
        try await change { connection in
            let subject = PostgresValue.text(notification.subject)
            let owner = try await connection.query(
                "SELECT member_id FROM member.identities WHERE provider = 'APPLE' AND provider_user_id = $1", [subject])
            let memberId = try owner.first?.int("member_id")
            var memberDeleted = false
            if let member = memberId {
                switch notification.type {
                case "consent-revoked", "account-delete":
                    memberDeleted = try await Self.endAppleIdentity(notification, memberId: member, on: connection)
                case "email-disabled", "email-enabled":
                    _ = try await connection.query("""
                        UPDATE member.identities
                           SET email_disabled = $2, email = COALESCE($3, email), is_private_email = COALESCE($4, is_private_email)
                         WHERE provider = 'APPLE' AND provider_user_id = $1
                        """, [subject, .bool(notification.type == "email-disabled"),
                              .optionalText(notification.email), .optionalBool(notification.isPrivateEmail)])
                default:
                    break  // A type Apple may add later: recorded, nothing to change.
                }
            }
            try await OutboxEvent(Events.appleNotification,
                                  AppleNotificationReceived(type: notification.type, subject: notification.subject, memberId: memberId))
                .write(on: connection)
            return AppleNotificationOutcome(memberId: memberId, memberDeleted: memberDeleted)
        }
    }

    /// Ends the member's Apple identity (`identity.unlinked` with Apple's event type as the reason),
    /// deleting the member when it was the last identity. True when the member was deleted.
    private static func endAppleIdentity(_ notification: AppleNotification, memberId: Int64,
                                         on connection: PostgresConnection) async throws -> Bool {
        guard try await lockMember(memberId, on: connection) else { return false }
        let identities = try await connection.query(
            "SELECT provider, provider_user_id FROM member.identities WHERE member_id = $1 FOR UPDATE", [.int(memberId)])
        let isApple = { (row: PostgresRow) throws -> Bool in
            try row.string("provider") == Provider.apple.rawValue && row.string("provider_user_id") == notification.subject
        }
        // Another replica may have handled the same event while this one waited for the lock.
        guard try identities.contains(where: isApple) else { return false }
        try await OutboxEvent(Events.identityUnlinked,
                              IdentityUnlinked(memberId: memberId, provider: .apple, reason: notification.type))
            .write(on: connection)
        if identities.count == 1 {
            return try await delete(memberId: memberId, reason: "apple-\(notification.type)", keepingGrantsOf: .apple, on: connection)
        }
        _ = try await connection.query(
            "DELETE FROM member.identities WHERE provider = 'APPLE' AND provider_user_id = $1", [.text(notification.subject)])
        return false
    }
}
