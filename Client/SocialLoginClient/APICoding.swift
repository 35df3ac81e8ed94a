import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The API's JSON: success `{"data": ...}`, failure `{"error": {"code", "message"}}`, dates in ISO 8601.
enum APICoding {
    /// Encodes request bodies.
    static func encode<T: Encodable>(_ value: T) throws -> Data {
        try JSONEncoder().encode(value)
    }

    /// Decodes the `data` of a success envelope.
    static func decodeData<T: Decodable>(_ type: T.Type, from body: Data) throws -> T {
        do {
            return try decoder.decode(DataEnvelope<T>.self, from: body).data
        } catch {
            throw TransportError.invalidResponse("The server's answer is not the expected \(T.self).", underlying: error)
        }
    }

    /// The `APIError` an error response stands for.
    static func error(from body: Data, response: HTTPURLResponse) -> APIError {
        let retryAfter = response.value(forHTTPHeaderField: "Retry-After").flatMap(parseRetryAfter)
        let requestId = response.value(forHTTPHeaderField: "X-Request-Id")
        guard let envelope = try? decoder.decode(ErrorEnvelope.self, from: body) else {
            return APIError(code: .unexpectedResponse, message: "The server answered HTTP \(response.statusCode) without an error body.",
                            status: response.statusCode, retryAfter: retryAfter, requestId: requestId)
        }
        return APIError(code: envelope.error.code, message: envelope.error.message, status: response.statusCode,
                        retryAfter: retryAfter, requestId: requestId, reason: envelope.error.reason)
    }

    /// The `code` of an error body of this API; nil for any other body.
    static func errorCode(from body: Data) -> APIErrorCode? {
        (try? decoder.decode(ErrorEnvelope.self, from: body))?.error.code
    }

    /// `Retry-After` as delay-seconds, or as an HTTP date (RFC 9110 section 10.2.3).
    static func parseRetryAfter(_ value: String) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed), seconds >= 0 { return .seconds(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return .seconds(max(0, Int(date.timeIntervalSinceNow.rounded(.up))))
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            if let date = try? Date(text, strategy: .iso8601) { return date }
            if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 date: \(text)"))
        }
        return decoder
    }

    private struct DataEnvelope<T: Decodable>: Decodable {
        let data: T
    }

    private struct ErrorEnvelope: Decodable {
        struct Failure: Decodable {
            let code: APIErrorCode
            let message: String
            let reason: String?
        }
        let error: Failure
    }
}

/// `LoginResponse`: the answer to every login and refresh.
struct LoginPayload: Decodable, Sendable {
    let accessToken: String
    let refreshToken: String
    let tokenType: String
    let expiresIn: Int
    let memberId: Int64
    let isExistingMember: Bool

    /// The tokens to store, the access token's expiry counted from `receivedAt`.
    func tokens(receivedAt: Date) -> StoredTokens {
        StoredTokens(accessToken: accessToken, refreshToken: refreshToken,
                     expiresAt: receivedAt.addingTimeInterval(TimeInterval(expiresIn)), memberId: memberId)
    }
}

/// `POST /api/auth/refresh` body.
struct RefreshRequestBody: Encodable, Sendable {
    let refreshToken: String
    let deviceId: String?
}
