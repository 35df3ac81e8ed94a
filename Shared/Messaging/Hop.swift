import Contracts
import JSON

/// What the handler of one hop of a chain does with a request (``Responder/init(connection:endpoint:queue:maxConcurrent:startsOnDeliveryThread:logger:relaying:)``):
/// answer the caller, or hand the request on to the next service, whose answer this hop passes back to
/// the caller unread. The next endpoint answers with the same type, so the caller gets one reply either way.
///
/// A chain lets a service act only on what the one before it proved: the next subject takes requests from
/// the previous service's identity alone, so the caller at the head of the chain (the gateway) cannot send
/// the later hops a request of its own making.
public struct Hop<Reply: Codable & Sendable>: Sendable {
    enum Step: Sendable {
        case answer(Reply)
        case forward(subject: String, payload: [UInt8])
    }

    let step: Step

    /// Answers the caller with `reply`.
    public static func answer(_ reply: Reply) -> Hop {
        Hop(step: .answer(reply))
    }

    /// Hands `request` on to `endpoint`, which answers the caller.
    public static func forward<Next>(to endpoint: Endpoint<Next, Reply>, _ request: Next) throws(ServiceFailure) -> Hop {
        do {
            return Hop(step: .forward(subject: endpoint.subject, payload: try MessageCoding.encode(request)))
        } catch {
            throw ServiceFailure.internal
        }
    }
}
