import Contracts

extension LoginRequest {
    /// The rule for an `attemptKey`, checked by the verifier before anything is written and by the issuer that
    /// derives a token from it: 1 to 64 bytes without control characters.
    public static func checkAttemptKey(_ key: String) throws(ServiceFailure) {
        guard (1...64).contains(key.utf8.count), !key.unicodeScalars.contains(where: \.isControlCharacter) else {
            throw ServiceFailure.invalidRequest("attemptKey must be 1 to 64 bytes without control characters.")
        }
    }
}
