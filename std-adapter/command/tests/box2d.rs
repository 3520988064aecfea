//! The Box2D problems of paper 002's Fig. 6 (`tools/box2d`), through the external objective's
//! JSON-lines protocol. They need the Python environment that `sh tools/box2d/setup.sh`
//! creates, so they are ignored by default (CI has no Python packages); run them with
//! `cargo test -p costbo-lab --test integration box2d:: -- --ignored`.

use costbo_lab::objectives::external::External;
use costbo_lab::objectives::Objective;
use costbo_lab::pandora::empirical::{command, Problem};

fn spawn(problem: Problem) -> External {
    let command = command(problem)
        .expect("no Box2D environment: run `sh tools/box2d/setup.sh` (tools/box2d/.venv)");
    External::spawn(&command, problem.dim()).unwrap()
}

#[test]
#[ignore = "needs tools/box2d/.venv (sh tools/box2d/setup.sh)"]
fn robot_push_hands_that_touch_nothing_leave_the_objects_at_their_starts() {
    let f = spawn(Problem::RobotPush);
    // Hands at (4, 4) and (4, −4) (u = 0.9 and 0.1 on [−5, 5]), commanded to stand still for
    // 10 steps: they never reach the square at (0, 2) or the disc at (0, −2), so the value is
    // minus the starts' distances to the targets, by hand
    // √(4.4185² + 6.3709²) + √(3.7641² + 2.4742²) = 7.753159… + 4.504456… = 12.257616…
    let still = [
        0.9, 0.9, 0.0, 0.0, 0.0, 0.0, 0.9, 0.1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    ];
    let e = f.evaluate(&still).unwrap();
    let d1 = (4.4185f64.powi(2) + 6.3709f64.powi(2)).sqrt();
    let d2 = (3.7641f64.powi(2) + 2.4742f64.powi(2)).sqrt();
    assert!((d1 + d2 - 12.257_616).abs() < 1e-6);
    assert!((e.value + d1 + d2).abs() < 1e-9, "{e:?}");
    // The hands drift only by the commanded noise (σ = 0.01 m/s for 0.1 s): cost ≈ 0.1.
    let c = e.cost.unwrap();
    assert!((0.1..0.101).contains(&c), "{c}");
    // A hand placed on the square's start and driven at full speed for the longest push
    // moves it (and itself): the value changes and the cost is its travel, far above 0.1.
    let mut push = still;
    push[..6].copy_from_slice(&[0.5, 0.7, 1.0, 1.0, 1.0, 0.0]);
    let p = f.evaluate(&push).unwrap();
    assert!((p.value + d1 + d2).abs() > 1e-3, "{p:?}");
    assert!(p.cost.unwrap() > 1.0, "{p:?}");
    // Deterministic: the same point gives the same answer, bit for bit.
    assert_eq!(f.evaluate(&push).unwrap(), p);
}

#[test]
#[ignore = "needs tools/box2d/.venv (sh tools/box2d/setup.sh)"]
fn lunar_lander_rewards_gyms_heuristic_and_charges_its_steps() {
    let f = spawn(Problem::LunarLander);
    // Gym's own heuristic constants as weights land on the pad: a mean reward above 100 (an
    // unsolved lander is negative), and episodes of a few hundred steps (cost = steps / 16).
    let gym = [
        0.5, 1.0, 0.4, 0.55, 0.5, 1.0, 0.5, 0.5, 0.0, 0.5, 0.05, 0.05,
    ];
    let e = f.evaluate(&gym).unwrap();
    assert!(e.value > 100.0, "{e:?}");
    let steps = e.cost.unwrap() * 16.0;
    assert!((100.0..1000.0).contains(&steps), "{e:?}");
    // Mean steps over 50 episodes: a whole number of fiftieths.
    assert!(
        (steps * 50.0 - (steps * 50.0).round()).abs() < 1e-6,
        "{steps}"
    );
    // All-zero weights never fire the main engine: the lander falls and crashes.
    let z = f.evaluate(&[0.0; 12]).unwrap();
    assert!(z.value < 0.0 && z.cost.unwrap() < e.cost.unwrap(), "{z:?}");
    assert_eq!(f.evaluate(&gym).unwrap(), e);
}
