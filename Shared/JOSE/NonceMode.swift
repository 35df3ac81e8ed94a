/// How a provider puts the request's nonce into its token.
public enum NonceMode: String, Sendable, Codable, CaseIterable {
    /// The token carries the lowercase hex SHA-256 of the raw nonce (Apple, Firebase, Supabase).
    case sha256Hex
    /// The token carries the raw nonce unchanged.
    case raw
    /// Either form is accepted.
    case either
}
