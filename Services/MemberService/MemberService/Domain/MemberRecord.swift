import Contracts
import Foundation
import Rules

/// A member as stored: its own details and its linked identities. ``profile`` is what the member is shown.
struct MemberRecord: Sendable, Equatable {
    var memberId: Int64
    var email: String?
    var name: String?
    var pictureUrl: String?
    var timezone: String?
    var locale: String?
    var identities: [LinkedIdentity]
    var createdAt: Date
    /// The suspension in force, if an admin suspended the member.
    var suspension: Suspension? = nil

    /// `suspended` while a suspension is in force, else `active`.
    var status: MemberStatus { suspension == nil ? .active : .suspended }

    /// The member's profile (`GET /api/members/me`).
    ///
    /// Rule (verified email): the member's email is verified while a linked identity's provider vouches for
    /// that very address; an email the app sent, or one no identity vouches for any more, is not.
    /// Rule (stored preferences): a time zone or locale is shown only when it is one now (logins before the
    /// profile rules stored what apps sent).
    var profile: MemberProfile {
        let verified = email != nil && identities.contains { $0.email == email && $0.emailVerified }
        return MemberProfile(memberId: memberId, email: email, emailVerified: verified, name: name, pictureUrl: pictureUrl,
                             timezone: timezone.flatMap { ProfileRules.isKnownTimeZone($0) ? $0 : nil },
                             locale: locale.flatMap(ProfileRules.loginLocale),
                             identities: identities, createdAt: createdAt)
    }
}
