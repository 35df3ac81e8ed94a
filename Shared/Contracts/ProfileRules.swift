import Foundation

/// The rules for a member's profile fields: what `PATCH /api/members/me` accepts (the gateway checks
/// it, and the member-service again, since it trusts nothing on the bus) and what a login's fields
/// and a provider's picture are stored as.
public enum ProfileRules {
    /// The most UTF-8 bytes of a name.
    public static let nameMaxBytes = 200
    /// The most bytes of a time zone name (the longest IANA name is 32).
    public static let timezoneMaxBytes = 64
    /// The most bytes of a locale: RFC 5646's buffer for tags without extensions (section 4.4.1).
    public static let localeMaxBytes = 35
    /// The most bytes of a picture URL kept from a provider.
    public static let pictureMaxBytes = 2_048

    /// Checks an update's fields; the failure names the first bad one. A field left out is not checked.
    public static func check(name: String?, timezone: String?, locale: String?) throws(ServiceFailure) {
        if let name {
            guard !name.unicodeScalars.allSatisfy(\.properties.isWhitespace) else { throw .invalidRequest("name must not be empty.") }
            guard name.utf8.count <= nameMaxBytes else { throw .invalidRequest("name must be at most \(nameMaxBytes) bytes.") }
            guard !name.unicodeScalars.contains(where: \.isControlCharacter) else { throw .invalidRequest("name must not contain control characters.") }
        }
        if let timezone, !isKnownTimeZone(timezone) {
            throw .invalidRequest("timezone must be an IANA time zone name such as Asia/Seoul.")
        }
        if let locale, !isWellFormedLanguageTag(locale) {
            throw .invalidRequest("locale must be a well-formed BCP 47 language tag such as ko-KR.")
        }
    }

    /// Whether `name` is an IANA time zone name this server knows (`Asia/Seoul`, `UTC`, `Etc/GMT-9`);
    /// offsets such as `GMT+9`, which Foundation also takes, are not names.
    public static func isKnownTimeZone(_ name: String) -> Bool {
        guard (1...timezoneMaxBytes).contains(name.utf8.count),
              name.utf8.allSatisfy({ isASCIIAlphanumeric($0) || "/_+-".utf8.contains($0) }) else { return false }
        if name == "UTC" { return true }  // IANA's, which Foundation renames GMT
        guard let zone = TimeZone(identifier: name), zone.identifier == name else { return false }
        return !name.hasPrefix("GMT+") && !name.hasPrefix("GMT-")
    }

    /// Whether `tag` is a well-formed language tag by RFC 5646's grammar (section 2.1), in any letter
    /// case, of at most ``localeMaxBytes`` bytes. Well-formed, not valid: subtags are not looked up
    /// in IANA's registry.
    public static func isWellFormedLanguageTag(_ tag: String) -> Bool {
        guard (1...localeMaxBytes).contains(tag.utf8.count),
              tag.utf8.allSatisfy({ isASCIIAlphanumeric($0) || $0 == UInt8(ascii: "-") }) else { return false }
        let lower = tag.lowercased()
        if grandfathered.contains(lower) { return true }
        let parts = lower.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard !parts.contains(where: \.isEmpty) else { return false }
        if parts[0] == "x" { return isPrivateUse(parts.dropFirst()) }
        guard isAlpha(parts[0]), (2...8).contains(parts[0].count) else { return false }
        var index = 1
        if parts[0].count <= 3 {  // up to three extended language subtags
            var extlangs = 0
            while index < parts.count, extlangs < 3, parts[index].count == 3, isAlpha(parts[index]) {
                index += 1
                extlangs += 1
            }
        }
        if index < parts.count, parts[index].count == 4, isAlpha(parts[index]) { index += 1 }  // script
        if index < parts.count,
           (parts[index].count == 2 && isAlpha(parts[index])) || (parts[index].count == 3 && isDigits(parts[index])) {
            index += 1  // region
        }
        while index < parts.count, isVariant(parts[index]) { index += 1 }
        while index < parts.count, parts[index].count == 1, parts[index] != "x" {  // extensions
            index += 1
            let start = index
            while index < parts.count, (2...8).contains(parts[index].count) { index += 1 }
            guard index > start else { return false }
        }
        if index < parts.count, parts[index] == "x" { return isPrivateUse(parts[(index + 1)...]) }
        return index == parts.count
    }

    /// A login's locale as stored: the tag in BCP 47's usual case (`ko-KR`, `zh-Hant-TW`), also from the
    /// `en_US` and `en_US@calendar=japanese` forms Apple's `Locale.identifier` gives; nil for anything
    /// else, which a login ignores rather than fail over.
    public static func loginLocale(_ value: String) -> String? {
        let tag = String(value.prefix { $0 != "@" }).replacingOccurrences(of: "_", with: "-")
        return isWellFormedLanguageTag(tag) ? canonicalCase(tag) : nil
    }

    /// A well-formed tag in the case RFC 5646 recommends (section 2.1.1): language and everything after
    /// a singleton in lower case, a script in title case, a region in upper case.
    public static func canonicalCase(_ tag: String) -> String {
        var afterSingleton = false
        return tag.split(separator: "-", omittingEmptySubsequences: false).enumerated().map { index, part -> String in
            let subtag = String(part)
            if index == 0 || afterSingleton { return subtag.lowercased() }
            if subtag.count == 1 {
                afterSingleton = true
                return subtag.lowercased()
            }
            if subtag.count == 4, isAlpha(subtag.lowercased()) { return subtag.prefix(1).uppercased() + subtag.dropFirst().lowercased() }
            if subtag.count == 2 { return subtag.uppercased() }
            return subtag.lowercased()
        }.joined(separator: "-")
    }

    /// A provider's picture as kept: an `https` URL of at most ``pictureMaxBytes`` bytes with a host, and
    /// no spaces or control characters; nil for anything else (it is shown to apps, which would load it).
    public static func pictureURL(_ value: String?) -> String? {
        guard let value, (9...pictureMaxBytes).contains(value.utf8.count),
              value.lowercased().hasPrefix("https://"),
              !value.unicodeScalars.contains(where: { $0.isControlCharacter || $0.properties.isWhitespace }),
              let components = URLComponents(string: value), components.scheme?.lowercased() == "https",
              let host = components.host, !host.isEmpty, components.user == nil, components.password == nil else { return nil }
        return value
    }

    private static func isPrivateUse(_ parts: ArraySlice<String>) -> Bool {
        !parts.isEmpty && parts.allSatisfy { (1...8).contains($0.count) }
    }

    private static func isVariant(_ subtag: String) -> Bool {
        (5...8).contains(subtag.count) || (subtag.count == 4 && subtag.utf8.first.map(isASCIIDigit) == true)
    }

    private static func isAlpha(_ text: String) -> Bool {
        text.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20) }
    }

    private static func isDigits(_ text: String) -> Bool {
        text.utf8.allSatisfy(isASCIIDigit)
    }

    private static func isASCIIDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        isASCIIDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    /// RFC 5646's grandfathered tags (section 2.2.8), in lower case.
    private static let grandfathered: Set<String> = [
        "en-gb-oed", "i-ami", "i-bnn", "i-default", "i-enochian", "i-hak", "i-klingon", "i-lux", "i-mingo", "i-navajo",
        "i-pwn", "i-tao", "i-tay", "i-tsu", "sgn-be-fr", "sgn-be-nl", "sgn-ch-de",
        "art-lojban", "cel-gaulish", "no-bok", "no-nyn", "zh-guoyu", "zh-hakka", "zh-min", "zh-min-nan", "zh-xiang",
    ]
}
