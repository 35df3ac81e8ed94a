import Contracts
import Postgres

extension MemberStore {
    /// How long a handled `jti` is remembered: the verifier's notification max age, plus an hour
    /// for a verifier clock that runs behind the database's.
    static let handledNotificationRetention: Duration = AppleNotification.maxAge + .seconds(3_600)

    /// Acts on a verified Apple notification: `consent-revoked` and `account-delete` end the Apple
    /// identity (and the member with it when it was the last one); `email-disabled` and
    /// `email-enabled` update the identity's email flags. Each `jti` takes effect once: a replay
    /// changes nothing and answers the first outcome. An event from before the identity was linked
    /// (about an earlier account of the same Apple user) changes nothing. Writes `apple.notification`.
    func handle(_ notification: AppleNotification) async throws -> AppleNotificationOutcome {
        try await change { connection in
            if let first = try await Self.handledBefore(notification, on: connection) { return first }
            // Contract dates carry whole seconds: an event in the second of the link counts as after it.
            let owner = try await connection.query("""
                SELECT member_id,
                       date_trunc('second', linked_at) <= \(notification.eventTime ?? notification.issuedAt)::timestamptz AS linked_before
                  FROM member.identities
                 WHERE provider = 'APPLE' AND provider_user_id = \(notification.subject)
                """)
            var outcome = AppleNotificationOutcome(memberId: nil, memberDeleted: false)
            if let row = owner.first, try row.bool("linked_before") {
                let memberId = try row.int("member_id")
                outcome.memberId = memberId
                switch AppleNotificationAction(type: notification.type) {
                case .endIdentity:
                    (outcome.identityEnded, outcome.memberDeleted) = try await Self.endAppleIdentity(notification, memberId: memberId,
                                                                                                   on: connection)
                case .setEmailDisabled(let disabled):
                    // Apple's notification is not one of the sources that vouch for an email: a new address is unverified.
                    _ = try await connection.query("""
                        UPDATE member.identities
                           SET email_disabled = \(disabled), email = COALESCE(\(notification.email), email),
                               email_verified = CASE WHEN \(notification.email)::text IS NULL OR \(notification.email) = email
                                                     THEN email_verified ELSE FALSE END,
                               is_private_email = COALESCE(\(notification.isPrivateEmail), is_private_email)
                         WHERE provider = 'APPLE' AND provider_user_id = \(notification.subject)
                        """)
                case .none:
                    break
                }
            }
            _ = try await connection.query("""
                UPDATE member.apple_notifications
                   SET member_id = \(outcome.memberId), identity_ended = \(outcome.identityEnded), member_deleted = \(outcome.memberDeleted)
                 WHERE jti = \(notification.jti)
                """)
            try await OutboxEvent(Events.appleNotification, AppleNotificationReceived(
                type: notification.type, subject: notification.subject, memberId: outcome.memberId))
                .write(on: connection)
            return outcome
        }
    }

    /// Records the notification's `jti` and returns nil when it is new; the first outcome when it
    /// was handled before. Forgets the `jti`s too old for the verifier to accept again, so the
    /// record stays bounded; a notification that old is refused here as well.
    private static func handledBefore(_ notification: AppleNotification,
                                      on connection: PostgresConnection) async throws -> AppleNotificationOutcome? {
        let retention = handledNotificationRetention.components.seconds
        _ = try await connection.query(
            "DELETE FROM member.apple_notifications WHERE issued_at < now() - make_interval(secs => \(retention))")
        let fresh = try await connection.query(
            "SELECT \(notification.issuedAt)::timestamptz >= now() - make_interval(secs => \(retention)) AS fresh")
        guard try fresh.first?.bool("fresh") == true else {
            throw ServiceFailure.invalidRequest("The notification is older than Apple notifications may be.")
        }
        let inserted = try await connection.query("""
            INSERT INTO member.apple_notifications (jti, issued_at) VALUES (\(notification.jti), \(notification.issuedAt))
                ON CONFLICT (jti) DO NOTHING RETURNING jti
            """)
        guard inserted.isEmpty else { return nil }
        let first = try await connection.query(
            "SELECT member_id, identity_ended, member_deleted FROM member.apple_notifications WHERE jti = \(notification.jti)")
        guard let row = first.first else { throw ServiceFailure.internal }
        return AppleNotificationOutcome(memberId: row.isNull("member_id") ? nil : try row.int("member_id"),
                                        identityEnded: try row.bool("identity_ended"), memberDeleted: try row.bool("member_deleted"))
    }

    /// Ends the member's Apple identity (`identity.unlinked` with Apple's event type as the reason),
    /// deleting the member when it was the last identity. Returns whether the identity ended and
    /// whether the member was deleted.
    private static func endAppleIdentity(_ notification: AppleNotification, memberId: Int64,
                                         on connection: PostgresConnection) async throws -> (ended: Bool, deleted: Bool) {
        guard try await lockMember(memberId, on: connection) != nil else { return (false, false) }
        let identities = try await connection.query(
            "SELECT provider, provider_user_id FROM member.identities WHERE member_id = \(memberId) FOR UPDATE")
        let isApple = { (row: PostgresRow) throws -> Bool in
            try row.string("provider") == Provider.apple.rawValue && row.string("provider_user_id") == notification.subject
        }
        // Another replica may have ended it (another notification) while this one waited for the lock.
        guard try identities.contains(where: isApple) else { return (false, false) }
        try await OutboxEvent(Events.identityUnlinked,
                              IdentityUnlinked(memberId: memberId, provider: .apple, reason: notification.type))
            .write(on: connection)
        if identities.count == 1 {
            let deleted = try await delete(memberId: memberId, reason: "apple-\(notification.type)", keepingGrantsOf: .apple,
                                           on: connection)
            return (true, deleted)
        }
        _ = try await connection.query(
            "DELETE FROM member.identities WHERE provider = 'APPLE' AND provider_user_id = \(notification.subject)")
        return (true, false)
    }
}
