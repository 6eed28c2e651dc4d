/// The Users example (being written).
public enum Users {}
