import Contracts
import Foundation
import HTTPServer
import JSON

extension HTTPResponse {
    /// `{"data": value}` with `status`.
    public static func data<T: Codable & Sendable>(_ value: T, status: Int = 200, headers: [(String, String)] = []) -> HTTPResponse {
        json(DataEnvelope(value), status: status, headers: headers)
    }

    /// The error envelope with the failure's status; 503 and 429 carry `Retry-After`, and
    /// `REAUTHENTICATION_REQUIRED` the RFC 9470 challenge with `maxAge` (seconds).
    public static func failure(_ failure: ServiceFailure, retryAfter: Int? = nil, maxAge: Int64 = 300) -> HTTPResponse {
        var headers: [(String, String)] = []
        if let retryAfter {
            headers.append(("Retry-After", String(retryAfter)))
        } else if failure.code == .serviceUnavailable {
            headers.append(("Retry-After", "1"))
        } else if failure.code == .reauthenticationRequired {
            headers.append(("WWW-Authenticate", #"Bearer error="insufficient_user_authentication", max_age=\#(maxAge)"#))
        }
        return json(ErrorEnvelope(failure), status: failure.httpStatus, headers: headers)
    }

    /// `value` as a JSON body.
    public static func json<T: Encodable>(_ value: T, status: Int, headers: [(String, String)] = []) -> HTTPResponse {
        guard let body = try? MessageCoding.encode(value) else {
            return HTTPResponse(status: 500, headers: [("Content-Type", "application/json")],
                                body: Array(#"{"error":{"code":"INTERNAL","message":"An internal error occurred."}}"#.utf8))
        }
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: body)
    }

    /// 204 with no body.
    public static let noContent = HTTPResponse(status: 204)
}
