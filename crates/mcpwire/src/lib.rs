pub fn y() {}
