// PKObservers: observers built on PKCore.
