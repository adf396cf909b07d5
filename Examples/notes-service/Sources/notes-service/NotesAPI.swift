import Foundation
import Hummingbird
import JWTKit

/// The routes of the service.
struct NotesAPI {
    var database: NotesDatabase
    var tokens: UserTokens

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("health") { _, _ in
            Health(status: "ok", notes: try await database.count())
        }
        router.get("notes") { request, _ in
            NoteList(notes: try await database.notes(of: try await tokens.user(of: request)))
        }
        router.post("notes") { request, context -> EditedResponse<Note> in
            let user = try await tokens.user(of: request)
            let new = try await request.decode(as: NewNote.self, context: context)
            guard !new.text.isEmpty else { throw HTTPError(.badRequest, message: "a note needs a text") }
            return EditedResponse(status: .created, response: try await database.add(new.text, for: user))
        }
        router.delete("notes/:id") { request, context -> HTTPResponse.Status in
            let user = try await tokens.user(of: request)
            let id = try context.parameters.require("id", as: Int64.self)
            return try await database.delete(id, of: user) ? .noContent : .notFound
        }
        return router
    }
}

extension Note: ResponseEncodable {}

/// `GET /health`.
struct Health: ResponseEncodable {
    var status: String
    var notes: Int
}

/// `GET /notes`.
struct NoteList: ResponseEncodable {
    var notes: [Note]
}

/// The body of `POST /notes`.
struct NewNote: Decodable {
    var text: String
}

/// The users' tokens: JWTs signed with HS256 by whoever issues them, the
/// user in `sub`, with an expiry.
struct UserTokens: Sendable {
    private let keys = JWTKeyCollection()

    /// The secret is read from `secretVariable`, then removed from the
    /// environment.
    init(secretVariable: String) async throws {
        guard let secret = ProcessInfo.processInfo.environment[secretVariable], secret.utf8.count >= 32 else {
            throw ServiceError("\(secretVariable) must hold the tokens' HS256 secret, at least 32 bytes")
        }
        unsetenv(secretVariable)
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
    }

    /// The user of a request's bearer token; 401 without a valid one.
    func user(of request: Request) async throws -> String {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
            throw HTTPError(.unauthorized, message: "a bearer token is needed")
        }
        do {
            return try await keys.verify(String(header.dropFirst("Bearer ".count)), as: UserToken.self).sub.value
        } catch {
            throw HTTPError(.unauthorized, message: "the token is not valid")
        }
    }
}

/// What a user's token says.
struct UserToken: JWTPayload {
    var sub: SubjectClaim
    var exp: ExpirationClaim

    func verify(using algorithm: some JWTAlgorithm) throws {
        try exp.verifyNotExpired()
    }
}

/// A configuration error of the service.
struct ServiceError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
