import Foundation
import JSON

/// PostgreSQL's ISO timestamp text (`2024-05-01 12:34:56.123456+00`), written and read with microsecond precision.
///
/// Hand-written because the formatter types are slower and lose microseconds; the session runs with
/// `TimeZone=UTC` and `DateStyle=ISO`, so the server's output has this one shape.
enum TimestampText {
    private static let unixEpochFromReference: Int64 = 978_307_200

    /// The first and last second of years 0001 to 9999 (PostgreSQL has no year 0000), from the reference
    /// date (2001-01-01).
    private static let earliest: Double = -63_113_904_000, latest: Double = 252_423_993_599

    /// `date` as `YYYY-MM-DD HH:MM:SS.ffffff+00`, rounded to the microsecond. A date outside years 0001 to
    /// 9999 is written as the first or last second of that range, never a trap.
    static func format(_ date: Date) -> String {
        let reference = date.timeIntervalSinceReferenceDate
        let clamped = reference.isNaN ? -Double(unixEpochFromReference) : min(max(reference, earliest), latest)
        let micros = Int64((clamped * 1_000_000).rounded()) + unixEpochFromReference * 1_000_000
        let (seconds, fraction) = floorDivide(micros, 1_000_000)
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        let (year, month, day) = CivilDate.civil(fromDays: days)
        var text = ""
        text.reserveCapacity(29)
        append(year, width: 4, to: &text)
        text += "-"
        append(month, width: 2, to: &text)
        text += "-"
        append(day, width: 2, to: &text)
        text += " "
        append(secondOfDay / 3600, width: 2, to: &text)
        text += ":"
        append(secondOfDay / 60 % 60, width: 2, to: &text)
        text += ":"
        append(secondOfDay % 60, width: 2, to: &text)
        text += "."
        append(fraction, width: 6, to: &text)
        text += "+00"
        return text
    }

    /// Reads `YYYY-MM-DD[ HH:MM:SS[.ffffff][±HH[:MM[:SS]]]]`; text without an offset is taken as UTC.
    static func parse(_ text: String) -> Date? {
        var utf8 = text.utf8[...]
        guard let year = number(&utf8, digits: 4), skip(&utf8, "-"),
              let month = number(&utf8, digits: 2), skip(&utf8, "-"),
              let day = number(&utf8, digits: 2),
              (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var seconds = CivilDate.days(fromYear: year, month: month, day: day) * 86_400
        var micros: Int64 = 0
        if skip(&utf8, " ") || skip(&utf8, "T") {
            guard let hour = number(&utf8, digits: 2), skip(&utf8, ":"),
                  let minute = number(&utf8, digits: 2), skip(&utf8, ":"),
                  let second = number(&utf8, digits: 2)
            else { return nil }
            seconds += hour * 3600 + minute * 60 + second
            if skip(&utf8, ".") {
                var scale: Int64 = 100_000
                var digits = 0
                while let digit = utf8.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) {
                    micros += Int64(digit - UInt8(ascii: "0")) * scale
                    scale /= 10
                    digits += 1
                    utf8.removeFirst()
                }
                guard digits > 0 else { return nil }
            }
            if let sign = utf8.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                utf8.removeFirst()
                guard let hours = number(&utf8, digits: 2) else { return nil }
                var offset = hours * 3600
                if skip(&utf8, ":") {
                    guard let minutes = number(&utf8, digits: 2) else { return nil }
                    offset += minutes * 60
                    if skip(&utf8, ":") {
                        guard let secs = number(&utf8, digits: 2) else { return nil }
                        offset += secs
                    }
                }
                seconds -= sign == UInt8(ascii: "+") ? offset : -offset
            }
        }
        guard utf8.isEmpty else { return nil }
        let sinceReference = (seconds - unixEpochFromReference) * 1_000_000 + micros
        return Date(timeIntervalSinceReferenceDate: Double(sinceReference) / 1_000_000)
    }

    private static func number(_ utf8: inout Substring.UTF8View, digits: Int) -> Int64? {
        var value: Int64 = 0
        for _ in 0..<digits {
            guard let digit = utf8.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            value = value * 10 + Int64(digit - UInt8(ascii: "0"))
            utf8.removeFirst()
        }
        return value
    }

    private static func skip(_ utf8: inout Substring.UTF8View, _ character: Unicode.Scalar) -> Bool {
        guard utf8.first == UInt8(ascii: character) else { return false }
        utf8.removeFirst()
        return true
    }

    private static func append(_ value: Int64, width: Int, to text: inout String) {
        let digits = String(value)
        if digits.count < width { text += String(repeating: "0", count: width - digits.count) }
        text += digits
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }
}
