/// `POST /<provider>/control`: simulate an outage. `{"available": false}` makes the provider's
/// token, revoke and profile endpoints answer 503 until `{"available": true}`; with `subject`,
/// only requests about that user are affected (so parallel tests do not meet).
public struct ProviderControl: Codable, Sendable, Equatable {
    /// Whether the token, revoke and profile endpoints answer.
    public var available: Bool?
    /// Whether the key set (`/<provider>/jwks`) answers; only for all users.
    public var jwksAvailable: Bool?
    /// A delay before each answer of those endpoints, in milliseconds (0 for none).
    public var delayMs: Int?
    /// Limit the settings to requests about this user (`sub`, or Naver `id`).
    public var subject: String?

    /// Creates a control request.
    public init(available: Bool? = nil, jwksAvailable: Bool? = nil, delayMs: Int? = nil, subject: String? = nil) {
        self.available = available
        self.jwksAvailable = jwksAvailable
        self.delayMs = delayMs
        self.subject = subject
    }
}

/// How one provider (or one of its users) behaves now.
struct ProviderBehaviour: Sendable {
    var available = true
    var jwksAvailable = true
    var delay: Duration = .zero

    mutating func apply(_ control: ProviderControl) {
        if let available = control.available { self.available = available }
        if let jwksAvailable = control.jwksAvailable { self.jwksAvailable = jwksAvailable }
        if let delayMs = control.delayMs { delay = .milliseconds(max(0, delayMs)) }
    }
}
