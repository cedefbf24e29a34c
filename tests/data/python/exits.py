import sys

print("leaving early")
sys.exit(3)
