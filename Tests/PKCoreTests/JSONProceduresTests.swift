import Foundation
import PKTesting
import Testing

private struct Person: Codable, Equatable, Sendable {
    var firstName: String
    var age: Int
}

struct JSONProceduresTests {

    @Test func encodeThenDecodeRoundTripsAValue() {
        let person = Person(firstName: "Ada", age: 36)
        let source = ResultProcedure { person }
        let encode = EncodeJSONProcedure<Person>()
        let decode = DecodeJSONProcedure(Person.self)
        encode.injectResult(from: source)
        decode.injectResult(from: encode)
        let queue = ProcedureQueue()
        queue.add(procedures: source, encode, decode)
        waitForAll(source, encode, decode)
        PKExpectProcedureOutput(decode, person)
    }

    @Test func decoderFactoryConfiguresTheDecoding() {
        let decode = DecodeJSONProcedure(Person.self) {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return decoder
        }
        decode.input = .ready(Data(#"{"first_name":"Grace","age":85}"#.utf8))
        let queue = ProcedureQueue()
        queue.add(procedure: decode)
        waitForAll(decode)
        PKExpectProcedureOutput(decode, Person(firstName: "Grace", age: 85))
    }

    @Test func encoderFactoryConfiguresTheEncoding() {
        let encode = EncodeJSONProcedure<Person> {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            encoder.keyEncodingStrategy = .convertToSnakeCase
            return encoder
        }
        encode.input = .ready(Person(firstName: "Alan", age: 41))
        let queue = ProcedureQueue()
        queue.add(procedure: encode)
        waitForAll(encode)
        let text = encode.output.value.flatMap { try? $0.get() }.map { String(decoding: $0, as: UTF8.self) }
        #expect(text == #"{"age":41,"first_name":"Alan"}"#)
    }

    @Test func invalidJSONFinishesWithTheDecodingError() {
        let decode = DecodeJSONProcedure(Person.self)
        decode.input = .ready(Data("not json".utf8))
        let queue = ProcedureQueue()
        queue.add(procedure: decode)
        waitForAll(decode)
        PKExpectProcedureFinishedWithErrors(decode, count: 1)
        #expect(decode.error is DecodingError)
    }

    @Test func pendingInputFinishesWithRequirementNotSatisfied() {
        let decode = DecodeJSONProcedure(Person.self)
        let encode = EncodeJSONProcedure<Person>()
        let queue = ProcedureQueue()
        queue.add(procedures: decode, encode)
        waitForAll(decode, encode)
        PKExpectProcedureError(decode, equals: ProcedureKitError.requirementNotSatisfied())
        PKExpectProcedureError(encode, equals: ProcedureKitError.requirementNotSatisfied())
    }

    @Test func encodingErrorFinishesWithTheError() {
        let encode = EncodeJSONProcedure<Double>()
        encode.input = .ready(.infinity)
        let queue = ProcedureQueue()
        queue.add(procedure: encode)
        waitForAll(encode)
        PKExpectProcedureFinishedWithErrors(encode, count: 1)
        #expect(encode.error is EncodingError)
    }
}
