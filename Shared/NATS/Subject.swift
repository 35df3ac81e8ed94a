/// Validation of subjects and names before they reach the library or the server.
enum Subject {
    /// Throws ``NATSError/invalidSubject`` unless `subject` is non-empty, has no whitespace and no empty
    /// tokens; wildcards (`*`, `>` as whole tokens) only when `wildcards` is true.
    static func validate(_ subject: String, wildcards: Bool) throws {
        var tokenLength = 0
        var tokenIsWildcard = false
        var sawFullWildcard = false
        var valid = !subject.isEmpty
        for byte in subject.utf8 where valid {
            switch byte {
            case UInt8(ascii: "."):
                valid = tokenLength > 0 && !sawFullWildcard
                tokenLength = 0
                tokenIsWildcard = false
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"), 0:
                valid = false
            case UInt8(ascii: "*"), UInt8(ascii: ">"):
                valid = wildcards && tokenLength == 0
                sawFullWildcard = byte == UInt8(ascii: ">")
                tokenIsWildcard = true
                tokenLength = 1
            default:
                valid = !tokenIsWildcard
                tokenLength += 1
            }
        }
        guard valid, tokenLength > 0 else {
            throw NATSError(code: .invalidSubject, detail: "invalid subject '\(subject)'")
        }
    }

    /// Throws ``NATSError/invalidSubject`` unless `name` (a queue group, stream or consumer name) is non-empty
    /// and has no whitespace or wildcards; dots only when `dots` is true (queue groups may have them).
    static func validateName(_ name: String, kind: String, dots: Bool = false) throws {
        let invalid = name.utf8.contains { byte in
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"), 0,
                 UInt8(ascii: "*"), UInt8(ascii: ">"): true
            case UInt8(ascii: "."): !dots
            default: false
            }
        }
        guard !name.isEmpty, !invalid else {
            throw NATSError(code: .invalidSubject, detail: "invalid \(kind) '\(name)'")
        }
    }
}
