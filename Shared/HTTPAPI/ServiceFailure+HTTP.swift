import Contracts

extension ServiceFailure {
    /// The HTTP status of this failure (docs/api.md, "Error codes"). Only the HTTP faces (the gateway, the
    /// admin-api) map codes to statuses.
    public var httpStatus: Int {
        switch code {
        case .invalidRequest: 400
        case .invalidProviderToken, .providerTokenExpired, .nonceMismatch, .unauthorized,
             .invalidRefreshToken, .refreshTokenReused, .reauthenticationRequired: 401
        case .memberSuspended: 403
        case .providerDisabled, .notFound: 404
        case .methodNotAllowed: 405
        case .identityInUse, .lastIdentity: 409
        case .payloadTooLarge: 413
        case .unsupportedMediaType: 415
        case .rateLimited: 429
        case .providerUnavailable: 502
        case .serviceUnavailable: 503
        case .timeout: 504
        default: 500
        }
    }
}
