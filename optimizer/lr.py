"""paddle.optimizer.lr: learning-rate schedules."""
from ..passes.lr_scheduler import (CosineAnnealingDecay, ExponentialDecay, InverseTimeDecay,
                                   LambdaDecay, LinearWarmup, LRScheduler, MultiplicativeDecay,
                                   MultiStepDecay, NaturalExpDecay, NoamDecay, PiecewiseDecay,
                                   PolynomialDecay, ReduceOnPlateau, StepDecay)

__all__ = ["LRScheduler", "NoamDecay", "PiecewiseDecay", "NaturalExpDecay", "InverseTimeDecay",
           "PolynomialDecay", "LinearWarmup", "ExponentialDecay", "MultiStepDecay", "StepDecay",
           "LambdaDecay", "MultiplicativeDecay", "ReduceOnPlateau", "CosineAnnealingDecay"]
