CLIENT = "x"
CASES = {}
