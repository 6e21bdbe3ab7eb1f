"""Sampling loop of the Dingo bridge firmware (MicroPython on a Pico; CPython in tests).

Hardware access is passed in (pins with ``.value()``, clock functions, an IRQ
guard), so the same code runs on the RP2040 with ``machine.Pin`` and on the
host with fake pins. No CPython-only features: this file is copied to the Pico.

Several HX711s share one clock line (SCK) and each has its own data line
(DOUT): one train of 25 pulses reads every chip at once (24 data bits plus one
trailing pulse that selects channel A, gain 128 for the next conversion).
"""

from dingo_proto import error_line, hello_line, sample_line

FW_VERSION = "0.1.0"
SATURATED = (0x7FFFFF, -0x800000)
MAX_HIGH_US = 50  # an HX711 whose SCK stays high for 60 us or more powers down


def _nothing():
    return 0


def _restore(state):
    return None


class Hx711Bank:
    """Reads N HX711s on a shared SCK, all bits in the same clock pulses."""

    def __init__(self, sck, douts, ticks_us, ticks_diff, gain_pulses=25,
                 irq_off=_nothing, irq_on=_restore):
        if not 25 <= gain_pulses <= 27:
            raise ValueError("gain_pulses must be 25 (A/128), 26 (B/32) or 27 (A/64)")
        if not douts:
            raise ValueError("at least one DOUT pin is needed")
        self.sck = sck
        self.douts = list(douts)
        self.ticks_us = ticks_us
        self.ticks_diff = ticks_diff
        self.gain_pulses = gain_pulses
        self.irq_off = irq_off
        self.irq_on = irq_on
        sck.value(0)

    def ready(self):
        """List of booleans: which chips have a conversion waiting (DOUT low)."""
        return [d.value() == 0 for d in self.douts]

    def _pulse(self):
        """One SCK pulse with interrupts off; returns (DOUT bits, high time in us).

        The HX711 shifts the next bit out on the rising edge and holds it until the next
        one, so DOUT is read after the falling edge: SCK stays high as briefly as possible.
        """
        state = self.irq_off()
        t0 = self.ticks_us()
        self.sck.value(1)
        self.sck.value(0)
        high = self.ticks_diff(self.ticks_us(), t0)
        self.irq_on(state)
        return [d.value() for d in self.douts], high

    def read(self):
        """Clock out one conversion from every chip.

        Returns a list of (value or None, problem or None) per chip, where problem
        is ("desync", detail) when the trailing gain bits were wrong or a pulse was
        too long for the chip to stay awake.
        """
        n = len(self.douts)
        raw = [0] * n
        longest = 0
        for _ in range(24):
            bits, high = self._pulse()
            if high > longest:
                longest = high
            for i in range(n):
                raw[i] = (raw[i] << 1) | (1 if bits[i] else 0)
        trailing_low = [False] * n
        for _ in range(self.gain_pulses - 24):
            bits, high = self._pulse()
            if high > longest:
                longest = high
            for i in range(n):
                if not bits[i]:
                    trailing_low[i] = True
        out = []
        for i in range(n):
            value = raw[i] - 0x1000000 if raw[i] & 0x800000 else raw[i]
            if longest >= MAX_HIGH_US:
                out.append((None, ("desync", f"sck_high_us={longest}")))
            elif trailing_low[i]:
                out.append((None, ("desync", "gain bits")))
            else:
                out.append((value, None))
        return out


class Sampler:
    """Waits for the chips, reads them, and writes protocol lines through ``write``."""

    def __init__(self, bank, rate, write, ticks_us, ticks_diff, sleep_us, hello_every_s=5):
        if rate not in (10, 80):
            raise ValueError("rate must be 10 or 80 (the HX711 RATE pin)")
        self.bank = bank
        self.rate = rate
        self.period_us = 1000000 // rate
        self.write = write
        self.ticks_us = ticks_us
        self.ticks_diff = ticks_diff
        self.sleep_us = sleep_us
        self.hello_every_us = hello_every_s * 1000000
        self.seq = -1
        self.last_read = None
        self.last_hello = None

    def hello(self):
        """Announce the device (sent at start, every few seconds and on request)."""
        self.last_hello = self.ticks_us()
        self.write(hello_line(FW_VERSION, len(self.bank.douts), self.rate))

    def step(self):
        """Wait for one conversion (at most 1.5 periods), read it and emit its lines."""
        start = self.ticks_us()
        if self.last_hello is None or self.ticks_diff(start, self.last_hello) >= self.hello_every_us:
            self.hello()
        deadline = self.period_us * 3 // 2
        ready = self.bank.ready()
        while not all(ready):
            waited = self.ticks_diff(self.ticks_us(), start)
            if waited >= deadline:
                break
            self.sleep_us(200)
            ready = self.bank.ready()
        now = self.ticks_us()
        if self.last_read is None:
            self.seq += 1
        else:
            slots = (self.ticks_diff(now, self.last_read) + self.period_us // 2) // self.period_us
            self.seq += slots if slots > 1 else 1
        self.last_read = now
        seq = self.seq & 0xFFFF
        errors = []
        if any(ready):
            results = self.bank.read()
        else:
            results = [(None, None)] * len(ready)
        values = []
        for i, (value, problem) in enumerate(results):
            if not ready[i]:
                values.append(None)
                errors.append(error_line(seq, i, "late", f"us={self.ticks_diff(now, start)}"))
                continue
            values.append(value)
            if problem is not None:
                errors.append(error_line(seq, i, problem[0], problem[1]))
            elif value in SATURATED:
                errors.append(error_line(seq, i, "saturated", str(value)))
        self.write(sample_line(seq, values))
        for line in errors:
            self.write(line)
        return values
