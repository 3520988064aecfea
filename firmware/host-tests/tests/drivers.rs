//! The pump and sensor drivers against embedded-hal-mock, and the simulated peripherals.

use costbo_experiment::{DoseError, PumpSpec};
use costbo_firmware::drivers::delay::Chunked;
use costbo_firmware::drivers::pumps::{PumpError, Pumps};
use costbo_firmware::drivers::sensor::{
    SensorError, Sensors, REG_VALUE, REG_WHO_AM_I, WHO_AM_I_VALUE,
};
use costbo_firmware::experiment::{D, SPEC};
use costbo_firmware::sim::{SensorFeed, SimClock, SimDelay, SimPin, SimSensorBus};
use embedded_hal::delay::DelayNs;
use embedded_hal::digital::OutputPin;
use embedded_hal_mock::eh1::delay::{CheckedDelay, NoopDelay, Transaction as DelayT};
use embedded_hal_mock::eh1::digital::{Mock as PinMock, State, Transaction as PinT};
use embedded_hal_mock::eh1::i2c::{Mock as I2cMock, Transaction as I2cT};
use embedded_hal_mock::eh1::MockError;

const PUMP: PumpSpec = PumpSpec {
    channel: 1,
    ml_per_s: 0.5,
    concentration: 2.0,
    max_on_ms: 5_000,
};

#[test]
fn a_dose_switches_the_pump_on_for_its_on_time() {
    // 1000 * (3.0 - 1.0) / (2.0 * 0.5) = 2000 ms on channel 1.
    let p0 = PinMock::new(&[PinT::set(State::Low)]);
    let p1 = PinMock::new(&[
        PinT::set(State::Low),
        PinT::set(State::High),
        PinT::set(State::Low),
    ]);
    let delay = CheckedDelay::new(&[DelayT::delay_ms(2_000)]);
    let mut pumps = Pumps::new([p0, p1], delay).unwrap();
    let d = pumps.dose(&PUMP, 3.0, 1.0).unwrap();
    assert_eq!((d.on_ms, d.clamped), (2_000, false));
    let ([mut p0, mut p1], mut delay) = pumps.release();
    p0.done();
    p1.done();
    delay.done();
}

#[test]
fn long_doses_are_cut_and_bad_doses_refused_without_touching_the_pins() {
    let p0 = PinMock::new(&[PinT::set(State::Low)]);
    let p1 = PinMock::new(&[
        PinT::set(State::Low),
        PinT::set(State::High),
        PinT::set(State::Low),
    ]);
    let delay = CheckedDelay::new(&[DelayT::delay_ms(5_000)]);
    let mut pumps = Pumps::new([p0, p1], delay).unwrap();
    let d = pumps.dose(&PUMP, 100.0, 1.0).unwrap();
    assert_eq!((d.on_ms, d.clamped), (5_000, true));
    assert_eq!(
        pumps.dose(&PUMP, 0.5, 1.0),
        Err(PumpError::Dose(DoseError::BelowLower))
    );
    assert_eq!(
        pumps.dose(&PUMP, f32::INFINITY, 1.0),
        Err(PumpError::Dose(DoseError::NonFinite))
    );
    let far = PumpSpec { channel: 7, ..PUMP };
    assert_eq!(pumps.dose(&far, 2.0, 1.0), Err(PumpError::NoSuchChannel(7)));
    // A zero dose does not switch anything.
    assert_eq!(pumps.dose(&PUMP, 1.0, 1.0).unwrap().on_ms, 0);
    let ([mut p0, mut p1], mut delay) = pumps.release();
    p0.done();
    p1.done();
    delay.done();
}

#[test]
fn a_failing_pin_is_reported_and_switched_off() {
    let err = MockError::Io(std::io::ErrorKind::Other);
    let p0 = PinMock::new(&[
        PinT::set(State::Low),
        PinT::set(State::High).with_error(err.clone()),
        PinT::set(State::Low),
    ]);
    let mut pumps = Pumps::new([p0], NoopDelay::new()).unwrap();
    let r = pumps.run(0, 10);
    assert!(matches!(r, Err(PumpError::Pin(_))));
    let ([mut p0], _) = pumps.release();
    p0.done();
}

#[test]
fn sensors_read_big_endian_counts_through_the_calibration() {
    let ca = SPEC.variables[0].sensor.unwrap().address;
    let k = SPEC.variables[3].sensor.unwrap().address;
    let bus = I2cMock::new(&[
        I2cT::write_read(ca, vec![REG_WHO_AM_I], vec![WHO_AM_I_VALUE]),
        I2cT::write_read(ca, vec![REG_VALUE], vec![0x4E, 0x20]), // 20 000 counts
        I2cT::write_read(k, vec![REG_VALUE], vec![0x4E, 0x20]),
        I2cT::write_read(k, vec![REG_WHO_AM_I], vec![0x12]),
        I2cT::write_read(k, vec![REG_VALUE], vec![0xFF, 0xFF]),
    ]);
    let mut s = Sensors::new(bus);
    s.identify(ca).unwrap();
    // Ca: 0.0002 per count -> 4.0; K: 8.0 + 0.0001 per count -> 10.0.
    assert!((s.read(&SPEC, 0).unwrap() - 4.0).abs() < 1e-6);
    assert!((s.read(&SPEC, 3).unwrap() - 10.0).abs() < 1e-5);
    assert_eq!(
        s.identify(k),
        Err(SensorError::WrongDevice {
            address: k,
            id: 0x12
        })
    );
    // Full scale is beyond K's upper bound: clamped to 11.3.
    assert_eq!(s.read(&SPEC, 3).unwrap(), 11.3);
    assert_eq!(s.read(&SPEC, 9), Err(SensorError::NoSuchVariable(9)));
    s.release().done();
}

#[test]
fn simulated_sensors_report_the_fed_values() {
    let mut s = Sensors::new(SimSensorBus::<D>::new(&SPEC));
    s.identify_all(&SPEC).unwrap();
    let values = [1.2345f32, 0.5, 9.0, 10.05, 4.4];
    s.bus().feed(&SPEC, &values);
    for (l, &v) in values.iter().enumerate() {
        let r = s.read(&SPEC, l).unwrap();
        let step = SPEC.variables[l].sensor.unwrap().scale as f32;
        assert!((r - v).abs() <= step, "{l}: {r} vs {v}");
        let raw = SPEC.variables[l].sensor.unwrap().to_raw(v);
        assert_eq!(r, SPEC.measured(l, raw).unwrap());
    }
    assert!(s.identify(0x10).is_err());
}

#[test]
fn simulated_pins_record_on_times_against_the_simulated_clock() {
    let clock = SimClock::new();
    let mut pumps = Pumps::new([SimPin::new(&clock); 2], SimDelay::new(&clock)).unwrap();
    pumps.run(1, 1234).unwrap();
    pumps.run(1, 10).unwrap();
    pumps.run(0, 0).unwrap();
    let pins = pumps.pins();
    assert_eq!(pins[1].last_on_ns, 10_000_000);
    assert_eq!(pins[1].total_on_ns, 1_244_000_000);
    assert_eq!((pins[0].activations, pins[1].activations), (0, 2));
    assert_eq!(clock.now_ns(), 1_244_000_000);
    let mut p = SimPin::new(&clock);
    p.set_high().unwrap();
    assert!(p.is_high());
}

#[test]
fn long_waits_are_made_of_one_second_chunks() {
    let mut d = Chunked(CheckedDelay::new(&[
        DelayT::delay_ms(1_000),
        DelayT::delay_ms(1_000),
        DelayT::delay_ms(500),
        DelayT::delay_ms(3),
        DelayT::delay_us(250),
        DelayT::delay_ms(4),
        DelayT::delay_ns(5),
    ]));
    d.delay_ms(2_500);
    d.delay_us(3_250);
    d.delay_ns(4_000_005);
    d.0.done();
}
