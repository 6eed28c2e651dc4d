/// The Reminders example (being written).
public enum Reminders {}
