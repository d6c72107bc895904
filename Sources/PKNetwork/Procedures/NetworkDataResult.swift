import Foundation
import PKCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a data or upload task's completion becomes the procedure's result: the task's error, or a status outside the
/// acceptable codes (an `HTTPStatusError` carrying the body), or the body with its response; a non-HTTP response or
/// a missing body is ProcedureKit's `unknown` error caused by a ``NetworkResponseError``.
enum NetworkDataResult {

    static func make(
        data: Data?, response: URLResponse?, error: (any Error)?, acceptable: Set<Int>?
    ) -> ProcedureResult<HTTPPayloadResponse<Data>> {
        if let error { return .failure(error) }
        guard let http = response as? HTTPURLResponse else {
            guard let response else { return .failure(NetworkResponseError.missingPayload.procedureKitError) }
            return .failure(NetworkResponseError.notHTTPResponse(url: response.url).procedureKitError)
        }
        if let acceptable, !acceptable.contains(http.statusCode) {
            return .failure(HTTPStatusError(statusCode: http.statusCode, body: data, response: http))
        }
        guard let data else { return .failure(NetworkResponseError.missingPayload.procedureKitError) }
        return .success(HTTPPayloadResponse(payload: data, response: http))
    }
}
