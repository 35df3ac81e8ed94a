import Contracts
import Foundation

extension ClientContext {
    /// The context as a service keeps it: each field with its control characters dropped and cut to its
    /// limit (``FieldLimits/clientAddress``, ``FieldLimits/platform``, ``FieldLimits/appVersion``) at a
    /// character's end; a field left blank becomes nil. Never refused: what the client says of itself is
    /// a note for the audit trail, not a reason to fail its login.
    public var cleaned: ClientContext {
        ClientContext(address: Self.cleaned(address, maxBytes: FieldLimits.clientAddress),
                      platform: Self.cleaned(platform, maxBytes: FieldLimits.platform),
                      appVersion: Self.cleaned(appVersion, maxBytes: FieldLimits.appVersion))
    }

    /// `value` without control characters or invisible formatting, trimmed, cut to `maxBytes` UTF-8 bytes at a
    /// character's end; nil when nothing visible is left.
    public static func cleaned(_ value: String?, maxBytes: Int) -> String? {
        guard let value else { return nil }
        var scalars = String.UnicodeScalarView()
        for scalar in value.unicodeScalars where !ProfileRules.isUnsafeInText(scalar) { scalars.append(scalar) }
        var text = String(scalars).trimmingCharacters(in: .whitespaces)
        while text.utf8.count > maxBytes { text.removeLast() }
        text = text.trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : text
    }
}
