// Dingo bridge for Arduino (Uno, Nano, Pro Micro...): the same line protocol as the Pico
// firmware (firmware_bridge/PROTOCOL.md, version 2). Up to 4 HX711s share one clock line.
// Wiring: SCK -> D2, DOUT of HX711 #0..#3 -> D3..D6 (edit the pins below). RATE pin of each
// HX711 to DVDD for 80 samples/s. Upload with the Arduino IDE or:
//   arduino-cli compile -b arduino:avr:nano firmware_bridge/firmware/arduino/dingo_bridge
//   arduino-cli upload -b arduino:avr:nano -p /dev/ttyUSB0 firmware_bridge/firmware/arduino/dingo_bridge
// Not compiled by the test suite: the Pico firmware is the tested reference.

#include <Arduino.h>

static const char FW_VERSION[] = "0.1.0";
static const uint8_t SCK_PIN = 2;
static const uint8_t DOUT_PINS[] = {3, 4, 5, 6};
static const uint8_t CELLS = sizeof(DOUT_PINS);
static const uint16_t RATE = 80;
static const uint32_t PERIOD_US = 1000000UL / RATE;
static const uint8_t GAIN_PULSES = 25;          // channel A, gain 128
static const uint32_t HELLO_EVERY_MS = 5000;

static uint32_t seq = 0;
static bool first = true;
static uint32_t lastRead = 0;
static uint32_t lastHello = 0;

// CRC-16/CCITT-FALSE: polynomial 0x1021, init 0xFFFF, not reflected (check "123456789" = 29B1).
static uint16_t crc16(const char *s, size_t n) {
  uint16_t crc = 0xFFFF;
  for (size_t i = 0; i < n; i++) {
    crc ^= (uint16_t)((uint8_t)s[i]) << 8;
    for (uint8_t b = 0; b < 8; b++) crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
  }
  return crc;
}

static void sendLine(char *body) {
  size_t n = strlen(body);
  char tail[8];
  snprintf(tail, sizeof(tail), "*%04X\r\n", (unsigned)crc16(body, n));
  Serial.write(body, n);
  Serial.write(tail, strlen(tail));
}

static void hello() {
  char line[64];
  snprintf(line, sizeof(line), "H,2,fw=%s,cells=%u,rate=%u", FW_VERSION, CELLS, RATE);
  sendLine(line);
  lastHello = millis();
}

void setup() {
  pinMode(SCK_PIN, OUTPUT);
  digitalWrite(SCK_PIN, LOW);
  for (uint8_t i = 0; i < CELLS; i++) pinMode(DOUT_PINS[i], INPUT_PULLUP);
  Serial.begin(115200);
  hello();
}

void loop() {
  uint32_t start = micros();
  if (millis() - lastHello >= HELLO_EVERY_MS) hello();
  while (Serial.available()) {
    if (Serial.read() == '?') hello();
  }
  bool ready[CELLS];
  bool all;
  do {  // wait for every chip, at most 1.5 periods
    all = true;
    for (uint8_t i = 0; i < CELLS; i++) {
      ready[i] = digitalRead(DOUT_PINS[i]) == LOW;
      all = all && ready[i];
    }
  } while (!all && micros() - start < PERIOD_US * 3 / 2);
  uint32_t now = micros();
  if (first) {
    first = false;
  } else {
    uint32_t slots = (now - lastRead + PERIOD_US / 2) / PERIOD_US;
    seq += slots > 1 ? slots : 1;
  }
  lastRead = now;

  int32_t raw[CELLS] = {0};
  bool trailingLow[CELLS] = {false};
  uint32_t longest = 0;
  bool any = false;
  for (uint8_t i = 0; i < CELLS; i++) any = any || ready[i];
  if (any) {
    for (uint8_t p = 0; p < GAIN_PULSES; p++) {
      noInterrupts();
      uint32_t t0 = micros();
      digitalWrite(SCK_PIN, HIGH);
      delayMicroseconds(1);
      uint8_t bits[CELLS];
      for (uint8_t i = 0; i < CELLS; i++) bits[i] = digitalRead(DOUT_PINS[i]);
      digitalWrite(SCK_PIN, LOW);
      uint32_t high = micros() - t0;
      interrupts();
      if (high > longest) longest = high;
      for (uint8_t i = 0; i < CELLS; i++) {
        if (p < 24) raw[i] = (raw[i] << 1) | bits[i];
        else if (!bits[i]) trailingLow[i] = true;
      }
      delayMicroseconds(1);
    }
  }
  uint16_t s = (uint16_t)(seq & 0xFFFF);
  char line[128];
  int n = snprintf(line, sizeof(line), "S,%u", s);
  char errors[CELLS][48];
  uint8_t nerr = 0;
  for (uint8_t i = 0; i < CELLS; i++) {
    int32_t v = raw[i] & 0x800000 ? raw[i] - 0x1000000L : raw[i];
    bool valid = ready[i] && longest < 50 && !trailingLow[i];
    if (!ready[i]) {
      snprintf(errors[nerr++], 48, "E,%u,%u,late,us=%lu", s, i, (unsigned long)(now - start));
    } else if (longest >= 50) {
      snprintf(errors[nerr++], 48, "E,%u,%u,desync,sck_high_us=%lu", s, i, (unsigned long)longest);
    } else if (trailingLow[i]) {
      snprintf(errors[nerr++], 48, "E,%u,%u,desync,gain bits", s, i);
    } else if (v == 8388607L || v == -8388608L) {
      snprintf(errors[nerr++], 48, "E,%u,%u,saturated,%ld", s, i, (long)v);
    }
    if (valid) n += snprintf(line + n, sizeof(line) - n, ",%ld", (long)v);
    else n += snprintf(line + n, sizeof(line) - n, ",");
  }
  sendLine(line);
  for (uint8_t e = 0; e < nerr; e++) sendLine(errors[e]);
}
