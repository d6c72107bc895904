import PKTesting
import Synchronization
import Testing

@testable import PKCore

/// Subject: weakly held observers, add/remove/dispose/send.
struct SubjectTests {

    final class Listener: Sendable {
        let name: String
        private let received = PKMutex<[String]>([])
        init(_ name: String) { self.name = name }
        func receive(_ message: String) { received.withLock { $0.append(message) } }
        var messages: [String] { received.withLock { $0 } }
    }

    @Test func sendNotifiesObserversInTheOrderTheyWereAdded() {
        let subject = Subject<Listener>()
        let first = Listener("first")
        let second = Listener("second")
        subject.add(observer: first)
        subject.add(observer: second)
        var order: [String] = []
        subject.send { order.append($0.name) }
        #expect(order == ["first", "second"])
        #expect(subject.count == 2)
        #expect(subject[0] === first)
        #expect(subject[1] === second)
        #expect(subject[2] == nil)
        #expect(subject[second] == 1)
    }

    @Test func addingTwiceNotifiesTwice() {
        let subject = Subject<Listener>()
        let listener = Listener("twice")
        subject.add(observer: listener)
        subject.add(observer: listener)
        subject.send { $0.receive("hi") }
        #expect(listener.messages == ["hi", "hi"])
    }

    @Test func removeTakesEffectImmediately() {
        let subject = Subject<Listener>()
        let listener = Listener("removed")
        subject.add(observer: listener)
        subject.remove(observer: listener)
        #expect(subject.count == 0)
        subject.send { $0.receive("hi") }
        #expect(listener.messages.isEmpty)
    }

    @Test func disposeStopsNotificationsAndIsRecycledAtTheNextSend() {
        let subject = Subject<Listener>()
        let kept = Listener("kept")
        let disposed = Listener("disposed")
        subject.add(observer: kept)
        subject.add(observer: disposed)
        subject.dispose(observer: disposed)
        #expect(subject.count == 1)
        #expect(subject.observers.map(\.name) == ["kept"])
        subject.send { $0.receive("one") }
        #expect(disposed.messages.isEmpty)
        #expect(kept.messages == ["one"])
        // Re-adding after disposal works: the old entry was recycled by the send.
        subject.add(observer: disposed)
        subject.send { $0.receive("two") }
        #expect(disposed.messages == ["two"])
    }

    @Test func releasedObserverIsNotNotified() {
        let subject = Subject<Listener>()
        let notified = Atomic<Int>(0)
        do {
            let temporary = Listener("temporary")
            subject.add(observer: temporary)
            #expect(subject.count == 1)
        }
        subject.send { _ in notified.add(1, ordering: .relaxed) }
        let count = notified.load(ordering: .relaxed)
        #expect(count == 0)
        #expect(subject.count == 0)
    }

    @Test func observerAddedDuringSendIsNotifiedFromTheNextSend() {
        let subject = Subject<Listener>()
        let first = Listener("first")
        let late = Listener("late")
        subject.add(observer: first)
        subject.send { listener in
            listener.receive("one")
            if listener === first { subject.add(observer: late) }
        }
        #expect(late.messages.isEmpty)
        subject.send { $0.receive("two") }
        #expect(first.messages == ["one", "two"])
        #expect(late.messages == ["two"])
    }

    @Test func observerRemovedDuringSendStillGetsTheCurrentSendOnly() {
        let subject = Subject<Listener>()
        let first = Listener("first")
        let second = Listener("second")
        subject.add(observer: first)
        subject.add(observer: second)
        subject.send { listener in
            listener.receive("one")
            if listener === first { subject.remove(observer: second) }
        }
        subject.send { $0.receive("two") }
        #expect(first.messages == ["one", "two"])
        #expect(second.messages == ["one"])
    }

    @Test func aSingleDisposedObserverIsNotNotifiedAndIsRecycled() {
        let subject = Subject<Listener>()
        let listener = Listener("only")
        subject.add(observer: listener)
        subject.send { $0.receive("one") }
        subject.dispose(observer: listener)
        subject.send { $0.receive("two") }
        #expect(listener.messages == ["one"])
        #expect(subject.isEmpty)
    }

    @Test func aSingleReleasedObserverIsRecycled() {
        let subject = Subject<Listener>()
        var listener: Listener? = Listener("gone")
        subject.add(observer: listener!)
        listener = nil
        var notified = 0
        subject.send { _ in notified += 1 }
        #expect(notified == 0)
        #expect(subject.isEmpty)
    }

    @Test func aSingleObserverMayAddAnotherWhileNotified() {
        let subject = Subject<Listener>()
        let first = Listener("first")
        let second = Listener("second")
        subject.add(observer: first)
        subject.send { listener in
            listener.receive("one")
            subject.add(observer: second)
        }
        subject.send { $0.receive("two") }
        #expect(first.messages == ["one", "two"])
        #expect(second.messages == ["two"])
    }
}
