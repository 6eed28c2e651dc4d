/// The Contacts example (being written).
public enum Contacts {}
