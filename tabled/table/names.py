"""The table's devices and wagering areas, each named once: what the fold, the shell, the
simulated table and the views list and show."""

from dataclasses import dataclass

#: every device of the table, in the order their links are told
DEVICES = ("shuffler", "betspots", "meter", "shoe", "panel")
#: the devices on RS-232 (docs/protocols-serial.md); the others are on USB (docs/protocols-usb.md)
SERIAL_DEVICES = ("shuffler", "betspots", "meter")
USB_DEVICES = ("shoe", "panel")  # and the player card reader, found on the bus when ratings are on
#: the progressive equipment whose fault is 14.13 (the pool's links are named by the pool feed)
EQUIPMENT = ("meter", "betspots")
#: a spot's wagering areas, in this order: an ante before its progressive wager (11.1)
AREAS = ("ante", "progressive", "bet")


@dataclass(frozen=True)
class Named:
    """A device as the dealer's screen and messages name it, and as the pit's page does."""

    dealer: str
    pit: str


#: every device and the player card reader, by its key
NAMES = {
    "shuffler": Named("shuffling device", "shuffling device"),
    "betspots": Named("bet-spot board", "bet-spot board"),
    "meter": Named("meter", "progressive meter"),
    "shoe": Named("card-reading shoe", "card shoe"),
    "panel": Named("dealer's panel", "button panel"),
    "cards": Named("player card reader", "player card reader"),
}
#: each device as the pit's view names it
DEVICE_NAMES = {key: n.pit for key, n in NAMES.items()}


def link_name(device: str) -> str:
    """A device as the dealer is told about it."""
    return NAMES[device].dealer


def equipment_name(equipment: str) -> str:
    """Equipment as the dealer is told about its fault (14.13): a device by its name, a pool
    (``pool``, ``pool:NAME``) by its key."""
    named = NAMES.get(equipment)
    return named.dealer if named else equipment


__all__ = ["AREAS", "DEVICES", "DEVICE_NAMES", "EQUIPMENT", "NAMES", "SERIAL_DEVICES", "USB_DEVICES",
           "equipment_name", "link_name"]
