"""Dingo bridge firmware entry point for a Raspberry Pi Pico (MicroPython).

Copy ``dingo_proto.py``, ``dingo_fw.py`` and this file to the Pico (see
``firmware_bridge/README.md``). Pins below match ``hardware/docs/wiring.svg``.
Send ``?`` followed by a newline to get the hello line again.
"""

import select
import sys
import time

import machine
from dingo_fw import Hx711Bank, Sampler

SCK_PIN = 2               # GP2 -> SCK of every HX711 (shared clock)
DOUT_PINS = (3, 4, 5, 6)  # GP3..GP6 -> DOUT of HX711 #0..#3 (drop entries for fewer cells)
RATE = 80                 # HX711 RATE pin tied to DVDD -> 80 samples/s (GND -> 10)


def main():
    """Stream protocol lines over USB serial forever."""
    sck = machine.Pin(SCK_PIN, machine.Pin.OUT, value=0)
    douts = [machine.Pin(p, machine.Pin.IN, machine.Pin.PULL_UP) for p in DOUT_PINS]
    bank = Hx711Bank(sck, douts, time.ticks_us, time.ticks_diff,
                     irq_off=machine.disable_irq, irq_on=machine.enable_irq)
    out = sys.stdout
    sampler = Sampler(bank, RATE, out.write, time.ticks_us, time.ticks_diff, time.sleep_us)
    poll = select.poll()
    poll.register(sys.stdin, select.POLLIN)
    led = machine.Pin("LED", machine.Pin.OUT)
    n = 0
    while True:
        sampler.step()
        if poll.poll(0) and sys.stdin.read(1) == "?":
            sampler.hello()
        n += 1
        if n % 40 == 0:
            led.toggle()  # blinks once a second at 80 Hz: the loop is alive


main()
