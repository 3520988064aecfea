//! Online tuning of a training hyperparameter with paid validations (work in progress).
