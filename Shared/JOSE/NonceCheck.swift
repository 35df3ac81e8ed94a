import Crypto

/// Compares a token's `nonce` with the nonce the client sent, as docs/providers.md describes.
public enum NonceCheck {
    /// Throws `nonceMismatch` unless the nonces agree under `mode`.
    ///
    /// With a request nonce, the token's nonce must equal its SHA-256 hex or the raw value (per `mode`),
    /// compared in constant time; a token without a nonce fails. Without a request nonce, a token nonce is
    /// accepted only if `allowTokenNonceWithoutRequest`. Empty strings count as absent.
    public static func check(tokenNonce: String?, requestNonce: String?, mode: NonceMode,
                             allowTokenNonceWithoutRequest: Bool) throws(JOSEError) {
        let token = tokenNonce.flatMap { $0.isEmpty ? nil : $0 }
        guard let request = requestNonce, !request.isEmpty else {
            if token != nil && !allowTokenNonceWithoutRequest {
                throw JOSEError.nonceMismatch.with("token has a nonce, request has none")
            }
            return
        }
        guard let token else { throw JOSEError.nonceMismatch.with("request has a nonce, token has none") }
        let tokenBytes = Array(token.utf8)
        var matched = false
        if mode != .raw {
            matched = constantTimeEquals(tokenBytes, Array(Digest.sha256Hex(request).utf8)) || matched
        }
        if mode != .sha256Hex {
            matched = constantTimeEquals(tokenBytes, Array(request.utf8)) || matched
        }
        guard matched else { throw JOSEError.nonceMismatch }
    }
}
