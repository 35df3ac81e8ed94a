import Contracts

/// Checks of decoded fields; each failure names the field.
public enum Field {
    /// A required string: not blank, at most `maxBytes` UTF-8 bytes, no control characters (NUL, line
    /// breaks, ...: nothing a device ID, token or name holds, and what logs and databases choke on).
    public static func required(_ value: String, _ name: String, maxBytes: Int) throws(ServiceFailure) {
        if value.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) {
            throw ServiceFailure.invalidRequest("\(name) must not be empty.")
        }
        if value.unicodeScalars.contains(where: \.isControlCharacter) {
            throw ServiceFailure.invalidRequest("\(name) must not contain control characters.")
        }
        if value.utf8.count > maxBytes {
            throw ServiceFailure.invalidRequest("\(name) must be at most \(maxBytes) bytes.")
        }
    }

    /// A device identifier: required, at most ``FieldLimits/deviceId`` bytes, no control characters. The
    /// gateway checks it, and so does every service that keeps or compares one, trusting no caller.
    public static func deviceId(_ value: String) throws(ServiceFailure) {
        try required(value, "deviceId", maxBytes: FieldLimits.deviceId)
    }

    /// A refresh's fields: the token required (at most ``FieldLimits/refreshToken`` bytes), the device ID optional.
    /// The gateway checks them, and so does the issuer, trusting no caller.
    public static func refresh(token: String, deviceId: String?) throws(ServiceFailure) {
        try required(token, "refreshToken", maxBytes: FieldLimits.refreshToken)
        try optional(deviceId, "deviceId", maxBytes: FieldLimits.deviceId)
    }

    /// An optional string: when present, not blank and at most `maxBytes` UTF-8 bytes.
    public static func optional(_ value: String?, _ name: String, maxBytes: Int) throws(ServiceFailure) {
        if let value { try required(value, name, maxBytes: maxBytes) }
    }
}
