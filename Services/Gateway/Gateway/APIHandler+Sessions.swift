import Contracts
import HTTPServer

extension APIHandler {
    /// Session routes (logout, logout-all, session list and deletion).
    static let sessionRoutes: [Route] = []
}
