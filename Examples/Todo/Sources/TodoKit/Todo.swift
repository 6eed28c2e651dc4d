/// The Todo example (being written).
public enum Todo {}
