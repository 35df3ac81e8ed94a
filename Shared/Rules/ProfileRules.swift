import Contracts
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
            try Field.required(name, "name", maxBytes: nameMaxBytes)
            guard !name.unicodeScalars.contains(where: isUnsafeInText) else {
                throw .invalidRequest("name must not contain invisible formatting, direction overrides, line separators or private-use characters.")
            }
            guard !name.unicodeScalars.allSatisfy(isBlank) else { throw .invalidRequest("name must contain a visible character.") }
        }
        if let timezone, !isKnownTimeZone(timezone) {
            throw .invalidRequest("timezone must be an IANA time zone name such as Asia/Seoul.")
        }
        if let locale, !isWellFormedLanguageTag(locale) {
            throw .invalidRequest("locale must be a well-formed BCP 47 language tag such as ko-KR.")
        }
    }

    /// Whether `name` is an IANA time zone name this server knows (`Asia/Seoul`, `UTC`, `Etc/GMT-9`).
    /// Foundation's ICU also takes offsets (`GMT+9`), Java's three-letter IDs (`PST`, `IST`) and names
    /// IANA removed (`SystemV/…`, `US/Pacific-New`); those are not IANA names, and programs that read
    /// the member's zone with IANA's data would fail on them.
    public static func isKnownTimeZone(_ name: String) -> Bool {
        guard (1...timezoneMaxBytes).contains(name.utf8.count),
              name.utf8.allSatisfy({ isASCIIAlphanumeric($0) || "/_+-".utf8.contains($0) }) else { return false }
        guard name.contains("/") else { return ianaSingleNames.contains(name) }
        guard !name.hasPrefix("SystemV/"), !removedNames.contains(name) else { return false }
        return TimeZone(identifier: name)?.identifier == name
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
            if subtag.count == 1 {
                afterSingleton = true
                return subtag.lowercased()
            }
            if index == 0 || afterSingleton { return subtag.lowercased() }
            if subtag.count == 4, isAlpha(subtag.lowercased()) { return subtag.prefix(1).uppercased() + subtag.dropFirst().lowercased() }
            if subtag.count == 2 { return subtag.uppercased() }
            return subtag.lowercased()
        }.joined(separator: "-")
    }

    /// A provider's picture as kept: an `https` URL of at most ``pictureMaxBytes`` bytes, every character
    /// one RFC 3986 allows (ASCII; no quotes, brackets or spaces; `%` only before two hex digits), a DNS
    /// host name (ASCII or punycode, not an IP address), no user or password, a port in range; nil for
    /// anything else. Apps load and show it, often in web views.
    public static func pictureURL(_ value: String?) -> String? {
        guard let value, (9...pictureMaxBytes).contains(value.utf8.count), value.lowercased().hasPrefix("https://"),
              value.utf8.allSatisfy(isURLByte), hasValidEscapes(value), URLComponents(string: value) != nil else { return nil }
        // The authority, read here: Foundation shows a punycode host decoded. No user or password (`@`).
        let authority = value.dropFirst("https://".count).prefix { !"/?#".contains($0) }
        guard !authority.contains("@") else { return nil }
        let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard isHostName(String(parts[0])) else { return nil }
        if parts.count == 2 {
            guard let port = Int(parts[1]), (1...65_535).contains(port), parts[1].utf8.allSatisfy(isASCIIDigit) else { return nil }
        }
        return value
    }

    /// A name a provider gives, as kept: control characters and line separators become spaces, other
    /// invisible formatting and private-use characters are dropped, the ends are trimmed, and the rest is
    /// cut to ``nameMaxBytes`` bytes at a character's end; nil when nothing visible is left. (`PATCH`
    /// refuses what this cleans: an app can be told, a provider cannot.)
    public static func providerName(_ value: String?) -> String? {
        cleanedText(value, maxBytes: nameMaxBytes)
    }

    /// Text a client or provider sent, as kept where it is shown but was never checked (a name, a
    /// `User-Agent`'s platform): control characters and line separators become spaces, other invisible
    /// formatting and private-use characters are dropped, the ends are trimmed, and the rest is cut to
    /// `maxBytes` bytes at a character's end; nil when nothing visible is left.
    public static func cleanedText(_ value: String?, maxBytes: Int) -> String? {
        guard let value else { return nil }
        // The common case, without Foundation (which costs microseconds a call on Linux, at every hop of every
        // login): printable ASCII, within the bound, not starting or ending with a space, is kept as it is.
        let utf8 = value.utf8
        if utf8.count <= maxBytes, let first = utf8.first, let last = utf8.last, first != 0x20, last != 0x20,
           utf8.allSatisfy({ (0x20...0x7E).contains($0) }) {
            return value
        }
        // Only what can be kept is read: a few bytes past the bound (the trim below cuts at a character's end), so a
        // megabyte of text (a caller that checks no length) costs no more than its first bytes. Trimming a long text
        // one character at a time would cost its length squared (each step back over regional indicators recounts
        // them all).
        var scalars = String.UnicodeScalarView()
        var bytes = 0
        for scalar in value.unicodeScalars {
            if bytes > maxBytes + 8 { break }
            if scalar.isControlCharacter || [.lineSeparator, .paragraphSeparator].contains(scalar.properties.generalCategory) {
                scalars.append(" ")
                bytes += 1
            } else if !isUnsafeInText(scalar) {
                scalars.append(scalar)
                bytes += scalar.utf8.count
            }
        }
        var text = String(scalars).trimmingCharacters(in: .whitespacesAndNewlines)
        while text.utf8.count > maxBytes { text.removeLast() }
        return text.unicodeScalars.allSatisfy(isBlank) ? nil : text
    }

    /// An email a provider gives, as kept: nil when it is longer than 320 bytes or holds a space, a control
    /// character or invisible formatting (no address does; they break logs and databases).
    public static func providerEmail(_ value: String?) -> String? {
        guard let value, (1...320).contains(value.utf8.count),
              !value.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.isControlCharacter || isUnsafeInText($0) })
        else { return nil }
        return value
    }

    /// Whether `scalar` has no place in a name: a control character, invisible formatting (the bidi
    /// overrides and isolates, zero-width space, byte-order mark; not the zero-width joiners, which emoji
    /// and Persian names need), a line or paragraph separator, private use, or a noncharacter.
    public static func isUnsafeInText(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isControlCharacter || scalar.properties.isNoncharacterCodePoint { return true }
        switch scalar.properties.generalCategory {
        case .format: return scalar.value != 0x200C && scalar.value != 0x200D
        case .lineSeparator, .paragraphSeparator, .privateUse, .surrogate: return true
        default: return false
        }
    }

    /// Whether `scalar` shows nothing: white space, a default-ignorable (soft hyphen, zero-width
    /// characters, the Hangul fillers) or the blank Braille pattern.
    private static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace || scalar.properties.isDefaultIgnorableCodePoint || scalar.value == 0x2800
    }

    /// The bytes RFC 3986 allows in a URL (unreserved, reserved, `%`), less `'`, `[` and `]`.
    private static func isURLByte(_ byte: UInt8) -> Bool {
        isASCIIAlphanumeric(byte) || "-._~:/?#@!$&()*+,;=%".utf8.contains(byte)
    }

    private static func hasValidEscapes(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) else { return false }
                index += 3
            } else {
                index += 1
            }
        }
        return true
    }

    /// A DNS name of at least two labels, each 1-63 letters, digits or inner hyphens, not all digits (an IP address).
    private static func isHostName(_ host: String) -> Bool {
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, host.utf8.count <= 253, !host.utf8.allSatisfy({ isASCIIDigit($0) || $0 == UInt8(ascii: ".") }) else {
            return false
        }
        return labels.allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.utf8.allSatisfy { isASCIIAlphanumeric($0) || $0 == UInt8(ascii: "-") }
                && label.utf8.first != UInt8(ascii: "-") && label.utf8.last != UInt8(ascii: "-")
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isASCIIDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
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

    /// IANA's zone names without a slash (tzdata's zones and links, `Factory` aside).
    private static let ianaSingleNames: Set<String> = [
        "CET", "CST6CDT", "Cuba", "EET", "EST", "EST5EDT", "Egypt", "Eire", "GB", "GB-Eire", "GMT", "GMT+0", "GMT-0", "GMT0",
        "Greenwich", "HST", "Hongkong", "Iceland", "Iran", "Israel", "Jamaica", "Japan", "Kwajalein", "Libya", "MET", "MST",
        "MST7MDT", "NZ", "NZ-CHAT", "Navajo", "PRC", "PST8PDT", "Poland", "Portugal", "ROC", "ROK", "Singapore", "Turkey",
        "UCT", "UTC", "Universal", "W-SU", "WET", "Zulu",
    ]

    /// Names ICU still knows that IANA removed.
    private static let removedNames: Set<String> = ["US/Pacific-New", "Canada/East-Saskatchewan"]

    /// RFC 5646's grandfathered tags (section 2.2.8), in lower case.
    private static let grandfathered: Set<String> = [
        "en-gb-oed", "i-ami", "i-bnn", "i-default", "i-enochian", "i-hak", "i-klingon", "i-lux", "i-mingo", "i-navajo",
        "i-pwn", "i-tao", "i-tay", "i-tsu", "sgn-be-fr", "sgn-be-nl", "sgn-ch-de",
        "art-lojban", "cel-gaulish", "no-bok", "no-nyn", "zh-guoyu", "zh-hakka", "zh-min", "zh-min-nan", "zh-xiang",
    ]
}
