// Tests for PKObservers, one file per observer, in folders by area.
