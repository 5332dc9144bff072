"""The table's devices and wagering areas, each named once: what the fold, the shell, the
simulated table and the views list and show."""

#: every device of the table, in the order their links are told
DEVICES = ("shuffler", "betspots", "meter", "shoe", "panel")
#: the devices on RS-232 (docs/protocols-serial.md); the others are on USB (docs/protocols-usb.md)
SERIAL_DEVICES = ("shuffler", "betspots", "meter")
USB_DEVICES = ("shoe", "panel")  # and the player card reader, found on the bus when ratings are on
#: the progressive equipment whose fault is 14.13 (the pool's links are named by the pool feed)
EQUIPMENT = ("meter", "betspots")
#: a spot's wagering areas, in this order: an ante before its progressive wager (11.1)
AREAS = ("ante", "progressive", "bet")
#: each device as the pit's view names it
DEVICE_NAMES = {"shuffler": "shuffling device", "betspots": "bet-spot board", "meter": "progressive meter",
                "shoe": "card shoe", "panel": "button panel",
                "cards": "player card reader"}

__all__ = ["AREAS", "DEVICES", "DEVICE_NAMES", "EQUIPMENT", "SERIAL_DEVICES", "USB_DEVICES"]
