import JSON

/// The claims of a JWT payload, with the registered and OpenID Connect claims this project reads, and all claims in `raw`.
public struct JWTClaims: Sendable {
    /// Issuer.
    public var iss: String?
    /// Subject: the provider's user ID.
    public var sub: String?
    /// Audiences (a JSON string becomes a one-element array).
    public var aud: [String]
    /// Authorized party: the client the token was issued to.
    public var azp: String?
    /// Expiry, seconds since 1970 (fractions floored).
    public var exp: Int64?
    /// Not-before, seconds since 1970 (fractions floored).
    public var nbf: Int64?
    /// Issued-at, seconds since 1970 (fractions floored).
    public var iat: Int64?
    /// The nonce bound to the login request.
    public var nonce: String?
    /// E-mail address.
    public var email: String?
    /// Whether the provider verified `email` (Apple sends `"true"`/`"false"` strings; both forms are read).
    public var emailVerified: Bool?
    /// Apple: whether `email` is a private relay address (string or boolean).
    public var isPrivateEmail: Bool?
    /// Full name.
    public var name: String?
    /// Given name (`given_name`).
    public var givenName: String?
    /// Family name (`family_name`).
    public var familyName: String?
    /// Every claim in the payload, including the ones above and unknown ones.
    public var raw: [String: JSONValue]

    /// Claims from their values; `raw` is left as given.
    public init(iss: String? = nil, sub: String? = nil, aud: [String] = [], azp: String? = nil,
                exp: Int64? = nil, nbf: Int64? = nil, iat: Int64? = nil, nonce: String? = nil,
                email: String? = nil, emailVerified: Bool? = nil, isPrivateEmail: Bool? = nil,
                name: String? = nil, givenName: String? = nil, familyName: String? = nil,
                raw: [String: JSONValue] = [:]) {
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.azp = azp
        self.exp = exp
        self.nbf = nbf
        self.iat = iat
        self.nonce = nonce
        self.email = email
        self.emailVerified = emailVerified
        self.isPrivateEmail = isPrivateEmail
        self.name = name
        self.givenName = givenName
        self.familyName = familyName
        self.raw = raw
    }

    /// Decodes a payload that must be a JSON object; a registered claim of the wrong JSON type is `malformed`.
    public static func decode(_ payload: [UInt8]) throws(JOSEError) -> JWTClaims {
        guard case .object(let object)? = try? MessageCoding.decode(JSONValue.self, from: payload) else {
            throw JOSEError.malformed.with("payload is not a JSON object")
        }
        return JWTClaims(
            iss: try string(object, "iss"),
            sub: try string(object, "sub"),
            aud: try audience(object),
            azp: try string(object, "azp"),
            exp: try numericDate(object, "exp"),
            nbf: try numericDate(object, "nbf"),
            iat: try numericDate(object, "iat"),
            nonce: try string(object, "nonce"),
            email: try string(object, "email"),
            emailVerified: try flexibleBool(object, "email_verified"),
            isPrivateEmail: try flexibleBool(object, "is_private_email"),
            name: try string(object, "name"),
            givenName: try string(object, "given_name"),
            familyName: try string(object, "family_name"),
            raw: object)
    }

    private static func string(_ object: [String: JSONValue], _ name: String) throws(JOSEError) -> String? {
        switch object[name] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw JOSEError.malformed.with("claim \(name) is not a string")
        }
    }

    private static func audience(_ object: [String: JSONValue]) throws(JOSEError) -> [String] {
        switch object["aud"] {
        case nil, .null?: return []
        case .string(let value)?: return [value]
        case .array(let values)?:
            var audiences: [String] = []
            audiences.reserveCapacity(values.count)
            for value in values {
                guard case .string(let audience) = value else { throw JOSEError.malformed.with("aud holds a non-string") }
                audiences.append(audience)
            }
            return audiences
        default: throw JOSEError.malformed.with("aud is not a string or an array of strings")
        }
    }

    private static func numericDate(_ object: [String: JSONValue], _ name: String) throws(JOSEError) -> Int64? {
        switch object[name] {
        case nil, .null?: return nil
        case .integer(let value)?: return value
        case .number(let value)?:
            let floored = value.rounded(.down)
            // Bounds keep the conversion exact and in range; Int64.max itself is not representable as a Double.
            guard floored.isFinite, floored >= -9.2e18, floored <= 9.2e18 else {
                throw JOSEError.malformed.with("claim \(name) is out of range")
            }
            return Int64(floored)
        default: throw JOSEError.malformed.with("claim \(name) is not a number")
        }
    }

    private static func flexibleBool(_ object: [String: JSONValue], _ name: String) throws(JOSEError) -> Bool? {
        switch object[name] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        case .string("true")?: return true
        case .string("false")?: return false
        default: throw JOSEError.malformed.with("claim \(name) is not a boolean")
        }
    }
}
