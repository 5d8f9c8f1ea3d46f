"""paddle.optimizer.lr: the learning-rate schedules, and the 1.x decay functions that build the
rate into the program (exponential_decay, ..., linear_lr_warmup), which Paddle keeps here too."""
from ..frontend.layers.learning_rate_scheduler import (autoincreased_step_counter, cosine_decay,
                                                       exponential_decay, inverse_time_decay, linear_lr_warmup,
                                                       natural_exp_decay, noam_decay,
                                                       piecewise_decay, polynomial_decay)
from ..passes.lr_scheduler import (CosineAnnealingDecay, CosineAnnealingWarmRestarts, CyclicLR,
                                   ExponentialDecay, InverseTimeDecay, LambdaDecay, LinearLR,
                                   LinearWarmup, LRScheduler, MultiplicativeDecay, MultiStepDecay,
                                   NaturalExpDecay, NoamDecay, OneCycleLR, PiecewiseDecay,
                                   PolynomialDecay, ReduceOnPlateau, StepDecay)

__all__ = ["LRScheduler", "NoamDecay", "PiecewiseDecay", "NaturalExpDecay", "InverseTimeDecay",
           "PolynomialDecay", "LinearWarmup", "ExponentialDecay", "MultiStepDecay", "StepDecay",
           "LambdaDecay", "MultiplicativeDecay", "ReduceOnPlateau", "CosineAnnealingDecay",
           "OneCycleLR", "CyclicLR", "LinearLR", "CosineAnnealingWarmRestarts",
           "exponential_decay", "natural_exp_decay", "inverse_time_decay", "polynomial_decay",
           "piecewise_decay", "cosine_decay", "noam_decay", "linear_lr_warmup",
           "autoincreased_step_counter"]
