import Foundation

/// `POST /api/auth/google-login` body.
public struct GoogleLoginBody: Codable, Sendable {
    /// The ID token from Google's SDK.
    public var idToken: String
    /// The app's device ID.
    public var deviceId: String
    /// Google's access token, if the app has one (not used for sign-in).
    public var accessToken: String?
    /// The raw nonce given to Google's SDK, if any.
    public var nonce: String?
    /// The app's IANA time zone.
    public var timezone: String?
    /// The app's locale.
    public var locale: String?
    /// The device's platform (`iOS 18.1`), shown in the session lists; else read from the `User-Agent`.
    public var platform: String?
    /// The app's name and version (`MyApp 2.3.1`), shown in the session lists; else read from the `User-Agent`.
    public var appVersion: String?

    /// Creates a body.
    public init(idToken: String, deviceId: String, accessToken: String? = nil, nonce: String? = nil,
                timezone: String? = nil, locale: String? = nil,
                platform: String? = nil, appVersion: String? = nil) {
        self.idToken = idToken
        self.deviceId = deviceId
        self.accessToken = accessToken
        self.nonce = nonce
        self.timezone = timezone
        self.locale = locale
        self.platform = platform
        self.appVersion = appVersion
    }
}

/// `POST /api/auth/apple-login` body.
public struct AppleLoginBody: Codable, Sendable {
    /// The identity token from Sign in with Apple.
    public var identityToken: String
    /// The app's device ID.
    public var deviceId: String
    /// Apple's one-time authorization code.
    public var authorizationCode: String?
    /// The raw nonce whose SHA-256 the app gave Apple.
    public var rawNonce: String?
    /// The name Apple gave the app on the first sign-in only.
    public var fullName: PersonName?
    /// The email Apple gave the app on the first sign-in only.
    public var email: String?
    /// The app's IANA time zone.
    public var timezone: String?
    /// The app's locale.
    public var locale: String?
    /// The device's platform (`iOS 18.1`), shown in the session lists; else read from the `User-Agent`.
    public var platform: String?
    /// The app's name and version (`MyApp 2.3.1`), shown in the session lists; else read from the `User-Agent`.
    public var appVersion: String?

    /// Creates a body.
    public init(identityToken: String, deviceId: String, authorizationCode: String? = nil, rawNonce: String? = nil,
                fullName: PersonName? = nil, email: String? = nil, timezone: String? = nil, locale: String? = nil,
                platform: String? = nil, appVersion: String? = nil) {
        self.identityToken = identityToken
        self.deviceId = deviceId
        self.authorizationCode = authorizationCode
        self.rawNonce = rawNonce
        self.fullName = fullName
        self.email = email
        self.timezone = timezone
        self.locale = locale
        self.platform = platform
        self.appVersion = appVersion
    }
}

/// A person's name as Sign in with Apple hands it to the app.
public struct PersonName: Codable, Sendable, Equatable {
    /// The given name.
    public var givenName: String?
    /// The family name.
    public var familyName: String?

    /// Creates a name.
    public init(givenName: String? = nil, familyName: String? = nil) {
        self.givenName = givenName
        self.familyName = familyName
    }

    /// The name as one string, or nil when both parts are empty.
    public var formatted: String? {
        let parts = [givenName, familyName].compactMap { $0?.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }
}

/// `POST /api/auth/naver-login` body.
public struct NaverLoginBody: Codable, Sendable {
    /// Naver's access token.
    public var accessToken: String
    /// The app's device ID.
    public var deviceId: String
    /// The app's IANA time zone.
    public var timezone: String?
    /// The app's locale.
    public var locale: String?
    /// The device's platform (`iOS 18.1`), shown in the session lists; else read from the `User-Agent`.
    public var platform: String?
    /// The app's name and version (`MyApp 2.3.1`), shown in the session lists; else read from the `User-Agent`.
    public var appVersion: String?

    /// Creates a body.
    public init(accessToken: String, deviceId: String, timezone: String? = nil, locale: String? = nil,
                platform: String? = nil, appVersion: String? = nil) {
        self.accessToken = accessToken
        self.deviceId = deviceId
        self.timezone = timezone
        self.locale = locale
        self.platform = platform
        self.appVersion = appVersion
    }
}

/// `POST /api/auth/kakao-login` body.
public struct KakaoLoginBody: Codable, Sendable {
    /// The ID token from Kakao's SDK (OpenID Connect enabled).
    public var idToken: String
    /// The app's device ID.
    public var deviceId: String
    /// The raw nonce given to Kakao's SDK, if any.
    public var nonce: String?
    /// The app's IANA time zone.
    public var timezone: String?
    /// The app's locale.
    public var locale: String?
    /// The device's platform (`iOS 18.1`), shown in the session lists; else read from the `User-Agent`.
    public var platform: String?
    /// The app's name and version (`MyApp 2.3.1`), shown in the session lists; else read from the `User-Agent`.
    public var appVersion: String?

    /// Creates a body.
    public init(idToken: String, deviceId: String, nonce: String? = nil, timezone: String? = nil, locale: String? = nil,
                platform: String? = nil, appVersion: String? = nil) {
        self.idToken = idToken
        self.deviceId = deviceId
        self.nonce = nonce
        self.timezone = timezone
        self.locale = locale
        self.platform = platform
        self.appVersion = appVersion
    }
}

/// `POST /api/auth/refresh` body.
public struct RefreshBody: Codable, Sendable {
    /// The refresh token the app holds.
    public var refreshToken: String
    /// The app's device ID, if sent.
    public var deviceId: String?

    /// Creates a body.
    public init(refreshToken: String, deviceId: String? = nil) {
        self.refreshToken = refreshToken
        self.deviceId = deviceId
    }
}

/// `POST /api/auth/nonce` body.
public struct NonceBody: Codable, Sendable {
    /// The device the nonce is for: the login or link that sends it back must name the same.
    public var deviceId: String

    /// Creates a body.
    public init(deviceId: String) {
        self.deviceId = deviceId
    }
}

/// `POST /api/auth/nonce` answer's `data`.
public struct NonceResponse: Codable, Sendable, Equatable {
    /// The nonce: opaque, at least 128 bits.
    public var nonce: String
    /// Seconds until it expires.
    public var expiresIn: Int

    /// Creates one.
    public init(nonce: String, expiresIn: Int) {
        self.nonce = nonce
        self.expiresIn = expiresIn
    }
}
