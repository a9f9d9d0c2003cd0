import MathloopReal.ExpBounds
import MathloopReal.Kappa
