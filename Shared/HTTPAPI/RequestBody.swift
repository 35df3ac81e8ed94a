import Contracts
import HTTPServer
import JSON

/// Reads a JSON request body into its contract type, with failures that name the field.
public enum RequestBody {
    /// The answer to a body over the limit (`maxBodySize`, 64 KiB unless configured otherwise).
    public static let tooLarge = ServiceFailure(.payloadTooLarge, "The request body is larger than 64 KiB.")

    /// The decoded body, or the 4xx to answer: 413 over the size limit, 415 without
    /// `Content-Type: application/json`, 400 naming the missing or ill-typed field.
    public static func decode<T: Decodable>(_ type: T.Type, from request: HTTPRequest) throws(ServiceFailure) -> T {
        if request.bodyTooLarge {
            throw tooLarge
        }
        let contentType = request.header("content-type")?.split(separator: ";").first?
            .trimmingASCIISpaces().lowercased()
        guard contentType == "application/json" else {
            throw ServiceFailure(.unsupportedMediaType, "Send the body as JSON with Content-Type: application/json.")
        }
        guard !request.body.isEmpty else {
            throw ServiceFailure.invalidRequest("The request body is empty; send a JSON object.")
        }
        do {
            return try MessageCoding.decode(T.self, from: request.body)
        } catch let error as DecodingError {
            throw ServiceFailure.invalidRequest(describe(error))
        } catch {
            throw ServiceFailure.invalidRequest("The request body is not valid JSON.")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            "\(path(context.codingPath + [key])) is required."
        case .valueNotFound(_, let context):
            "\(path(context.codingPath)) must not be null."
        case .typeMismatch(let type, let context):
            context.codingPath.isEmpty
                ? "The request body must be a JSON object."
                : "\(path(context.codingPath)) must be \(typeName(type))."
        case .dataCorrupted(let context):
            context.codingPath.isEmpty ? "The request body is not valid JSON." : "\(path(context.codingPath)) is not valid."
        @unknown default:
            "The request body is not valid."
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type: "a whole number"
        default: "an object"
        }
    }
}
