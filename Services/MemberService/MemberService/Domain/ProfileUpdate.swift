import Contracts
import Foundation
import Rules

/// A member's own fields as `PATCH /api/members/me` changes them.
struct ProfileUpdate: Sendable, Equatable {
    var name: String?
    var timezone: String?
    var locale: String?

    /// The fields after `request` (checked by ``ProfileRules`` already), and the names of those that changed,
    /// sorted: a field the request leaves nil stays, a name is trimmed of spaces, a locale takes its usual case.
    /// Nothing need be written when no field changed.
    func applying(_ request: MemberUpdateRequest) -> (fields: ProfileUpdate, changed: [String]) {
        let new = ProfileUpdate(name: request.name?.trimmingCharacters(in: .whitespaces) ?? name,
                                timezone: request.timezone ?? timezone,
                                locale: request.locale.map(ProfileRules.canonicalCase) ?? locale)
        // Compared as bytes: Swift's == takes canonically equivalent strings (é and e + U+0301) for one.
        func differs(_ new: String?, _ old: String?) -> Bool { new.map { Array($0.utf8) } != old.map { Array($0.utf8) } }
        let changed = [("locale", differs(new.locale, locale)), ("name", differs(new.name, name)),
                       ("timezone", differs(new.timezone, timezone))]
            .filter(\.1).map(\.0)
        return (new, changed)
    }
}
